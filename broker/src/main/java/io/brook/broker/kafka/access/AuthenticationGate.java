package io.brook.broker.kafka.access;

import io.brook.broker.kafka.ConnectionScope;
import io.brook.broker.security.KafkaAuthenticator;
import java.util.Set;
import java.util.function.Supplier;
import javax.net.ssl.SSLSession;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * What a connection may send before it authenticated (auth on): ApiVersions, SaslHandshake and
 * SaslAuthenticate, as Kafka's SASL listeners. The listener asks when a request is handled, in the
 * connection's request order, so a request pipelined behind a SaslAuthenticate sees its outcome.
 * A client that never began SASL authenticates at its first other request by its TLS client
 * certificate (CN), else as {@code anonymous} when auth.anonymous is on; one that began SASL
 * (even if refused) gets no such fallback, as on gRPC a wrong token is not made up for by a
 * certificate.
 */
public final class AuthenticationGate {
  private static final Set<ApiKeys> BEFORE_AUTHENTICATION =
      Set.of(ApiKeys.API_VERSIONS, ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_AUTHENTICATE);

  private final KafkaAuthenticator auth;

  public AuthenticationGate(KafkaAuthenticator auth) {
    this.auth = auth;
  }

  /**
   * Whether a request of {@code key} may be handled now; false: the connection must close.
   *
   * @param tls the connection's TLS session, or null on plaintext
   */
  public boolean admits(ApiKeys key, ConnectionScope scope, Supplier<SSLSession> tls) {
    if (scope.isAuthenticated() || BEFORE_AUTHENTICATION.contains(key)) {
      return true;
    }
    if (scope.sasl().started()) {
      return false;
    }
    String who = auth.withoutSasl(tls.get());
    if (who == null) {
      return false;
    }
    scope.authenticated(KafkaCallers.of(auth, who));
    return true;
  }
}
