package io.brook.broker.kafka.sasl;

import io.brook.broker.security.KafkaAuthenticator;
import io.brook.broker.security.ScramSecret;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.security.plain.PlainAuthenticateCallback;
import org.apache.kafka.common.security.plain.internals.PlainSaslServer;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.ScramCredentialCallback;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslServer;

/**
 * Kafka's own SASL servers from kafka-clients (PLAIN, SCRAM-SHA-256/512: the message parsing, nonces
 * and proofs Kafka's brokers use), with their credential callbacks answered from Brook's tokens. A
 * SCRAM user without a token gets a credential no proof matches, so it fails where a wrong password
 * fails.
 */
public final class KafkaSaslServers {
  private final KafkaAuthenticator auth;

  public KafkaSaslServers(KafkaAuthenticator auth) {
    this.auth = auth;
  }

  /** A server for one exchange, or null when the mechanism is not served. */
  public SaslServer create(String mechanism) {
    if (!auth.mechanisms().contains(mechanism)) {
      return null;
    }
    if (mechanism.equals(PlainSaslServer.PLAIN_MECHANISM)) {
      return new PlainSaslServer(this::plain);
    }
    try {
      return new ScramSaslServer(ScramMechanism.forMechanismName(mechanism), Map.of(), callbacks -> scram(mechanism,
          callbacks));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256 and SHA-512", e);
    }
  }

  private void plain(Callback[] callbacks) throws UnsupportedCallbackException {
    String user = null;
    for (Callback c : callbacks) {
      if (c instanceof NameCallback n) {
        user = n.getDefaultName();
      } else if (c instanceof PlainAuthenticateCallback p) {
        p.authenticated(user != null && auth.plain(user, new String(p.password())) != null);
      } else {
        throw new UnsupportedCallbackException(c);
      }
    }
  }

  private void scram(String mechanism, Callback[] callbacks) throws UnsupportedCallbackException {
    String user = null;
    for (Callback c : callbacks) {
      if (c instanceof NameCallback n) {
        user = n.getDefaultName();
      } else if (c instanceof ScramCredentialCallback s && c.getClass() == ScramCredentialCallback.class) {
        ScramSecret secret = user == null ? null : auth.scram(mechanism, user);
        if (secret == null) {
          secret = auth.unmatchable(mechanism, String.valueOf(user));
        }
        s.scramCredential(new ScramCredential(secret.salt(), secret.storedKey(), secret.serverKey(),
            secret.iterations()));
      } else {
        throw new UnsupportedCallbackException(c); // a delegation token (tokenauth): Brook has none
      }
    }
  }
}
