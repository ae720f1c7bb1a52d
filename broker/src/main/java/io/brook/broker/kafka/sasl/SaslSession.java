package io.brook.broker.kafka.sasl;

import javax.security.sasl.SaslServer;

/**
 * One connection's SASL exchange: none yet, a mechanism chosen by SaslHandshake, then
 * SaslAuthenticate rounds until the server is complete (authenticated) or refuses (failed). A
 * connection authenticates once: there is no re-authentication (session lifetime 0, KIP-368).
 * The connection's handlers run one at a time, but on more than one thread: access is synchronized.
 */
public final class SaslSession {
  private SaslServer server;
  private boolean started;
  private boolean over;

  /** Whether SaslHandshake was sent: the connection then authenticates by SASL or not at all. */
  public synchronized boolean started() {
    return started;
  }

  /** Whether a SaslHandshake may begin an exchange now. */
  synchronized boolean mayStart() {
    return !started;
  }

  /** SaslHandshake chose a mechanism ({@code server} null: one not served; the exchange is over unbegun). */
  synchronized void handshake(SaslServer server) {
    this.started = true;
    this.server = server;
    this.over = server == null;
  }

  /** The server of the exchange under way, or null when there is none (no handshake, or it ended). */
  synchronized SaslServer server() {
    return over ? null : server;
  }

  /** The exchange ended, authenticated or refused: no further round is taken. */
  synchronized void end() {
    over = true;
    if (server != null) {
      try {
        server.dispose();
      } catch (javax.security.sasl.SaslException e) {
        // Kafka's servers hold nothing to release
      }
      server = null;
    }
  }
}
