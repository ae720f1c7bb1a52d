package io.brook.broker.kafka.sasl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.config.BrokerConfig;
import io.brook.broker.security.BrokerSecurity;
import io.brook.broker.security.KafkaAuthenticator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ClientFinalMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ClientFirstMessage;
import org.apache.kafka.common.security.scram.internals.ScramMessages.ServerFirstMessage;
import org.apache.kafka.common.security.scram.internals.ScramSaslClient;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Kafka door's SASL servers on Brook's tokens, driven by kafka-clients' own SCRAM client (the
 * code a real producer runs) and by PLAIN's wire form: the right token authenticates as its
 * principal, and an unknown user fails exactly as a wrong password does (same step, same message).
 */
class KafkaAuthenticatorTest {
  @TempDir static Path dir;
  static KafkaAuthenticator auth;

  @BeforeAll
  static void load() throws Exception {
    Path perms = Files.writeString(dir.resolve("perms"), "alice produce topic:orders\nbob * topic:*\n");
    BrokerConfig config = BrokerConfig.resolve(null, Map.of(), Map.of("auth.enabled", "true",
        "auth.tokens", "alice=s3cret-ä,bob=hunter2,alice=second", "auth.permissions.file", perms.toString()));
    auth = BrokerSecurity.load(config).kafka().orElseThrow();
  }

  /** kafka-clients' SCRAM client with a user and password, as the JAAS ScramLoginModule gives them. */
  private static ScramSaslClient client(String mechanism, String user, String password) throws Exception {
    return new ScramSaslClient(ScramMechanism.forMechanismName(mechanism), (Callback[] callbacks) -> {
      for (Callback c : callbacks) {
        if (c instanceof NameCallback n) {
          n.setName(user);
        } else if (c instanceof PasswordCallback p) {
          p.setPassword(password.toCharArray());
        } else if (c instanceof ScramExtensionsCallback) {
          // no extensions
        } else {
          throw new UnsupportedCallbackException(c);
        }
      }
    });
  }

  /** Runs the exchange; returns the step (1: first message, 2: final) the server refused at, or 0 when it completed. */
  private static int exchange(ScramSaslClient client, SaslServer server) throws Exception {
    byte[] first = client.evaluateChallenge(new byte[0]);
    byte[] serverFirst;
    try {
      serverFirst = server.evaluateResponse(first);
    } catch (Exception e) {
      failure = e.getMessage();
      return 1;
    }
    byte[] clientFinal = client.evaluateChallenge(serverFirst);
    byte[] serverFinal;
    try {
      serverFinal = server.evaluateResponse(clientFinal);
    } catch (Exception e) {
      failure = e.getMessage();
      return 2;
    }
    client.evaluateChallenge(serverFinal); // the client checks the server's signature: it knew the credential
    assertThat(client.isComplete()).isTrue();
    assertThat(server.isComplete()).isTrue();
    return 0;
  }

  static String failure;

  @ParameterizedTest
  @ValueSource(strings = {"SCRAM-SHA-256", "SCRAM-SHA-512"})
  void scramWithThePrincipalsTokenAuthenticatesItAndTheClientVerifiesTheServer(String mechanism) throws Exception {
    KafkaSaslServers servers = new KafkaSaslServers(auth);
    SaslServer server = servers.create(mechanism);
    assertThat(exchange(client(mechanism, "alice", "s3cret-ä"), server)).isZero();
    assertThat(server.getAuthorizationID()).isEqualTo("alice");
    SaslServer other = servers.create(mechanism);
    assertThat(exchange(client(mechanism, "bob", "hunter2"), other)).isZero();
    assertThat(other.getAuthorizationID()).isEqualTo("bob");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SCRAM-SHA-256", "SCRAM-SHA-512"})
  void scramRefusesAWrongPasswordAndAnUnknownUserAtTheSameStepWithTheSameMessage(String mechanism)
      throws Exception {
    KafkaSaslServers servers = new KafkaSaslServers(auth);
    assertThat(exchange(client(mechanism, "alice", "wrong"), servers.create(mechanism))).isEqualTo(2);
    String wrongPassword = failure;
    assertThat(exchange(client(mechanism, "mallory", "wrong"), servers.create(mechanism))).isEqualTo(2);
    assertThat(failure).isEqualTo(wrongPassword);
    // Another principal's token is not this user's password.
    assertThat(exchange(client(mechanism, "alice", "hunter2"), servers.create(mechanism))).isEqualTo(2);
  }

  /**
   * librdkafka before 2.6.1 (Debian's kcat 1.7.1: 2.0.2) sends r=<client nonce><server's r=> in its
   * final message, the client nonce twice, with a proof computed over that same message
   * (confluentinc/librdkafka#4895). Kafka 4.3.1 refuses it (seen on the oracle, docs/KAFKA.md), and so
   * does Brook, with Kafka's reason; the same hand-made client with RFC 5802's nonce gets in, so the
   * nonce alone is what is refused.
   */
  @ParameterizedTest
  @ValueSource(strings = {"SCRAM-SHA-256", "SCRAM-SHA-512"})
  void scramRefusesLibrdkafkaBefore261sRepeatedNonceAsKafka431DoesAndOnlyForIt(String mechanism) throws Exception {
    KafkaSaslServers servers = new KafkaSaslServers(auth);
    SaslServer repeated = servers.create(mechanism);
    assertThatThrownBy(() -> repeated.evaluateResponse(handMadeFinal(mechanism, repeated, true)))
        .hasMessage("Invalid client nonce in the final client message.");
    SaslServer rfc = servers.create(mechanism);
    rfc.evaluateResponse(handMadeFinal(mechanism, rfc, false));
    assertThat(rfc.isComplete()).isTrue();
    assertThat(rfc.getAuthorizationID()).isEqualTo("alice");
  }

  /** alice's client-final message after the server's first, built as librdkafka 2.0.2 ({@code repeat}) or RFC 5802 does. */
  private static byte[] handMadeFinal(String mechanism, SaslServer server, boolean repeat) throws Exception {
    ScramFormatter formatter = new ScramFormatter(ScramMechanism.forMechanismName(mechanism));
    String clientNonce = formatter.secureRandomString();
    ClientFirstMessage first = new ClientFirstMessage("alice", clientNonce, Map.of());
    ServerFirstMessage serverFirst = new ServerFirstMessage(server.evaluateResponse(first.toBytes()));
    String nonce = repeat ? clientNonce + serverFirst.nonce() : serverFirst.nonce();
    ClientFinalMessage last = new ClientFinalMessage("n,,".getBytes(StandardCharsets.UTF_8), nonce);
    byte[] salted = formatter.saltedPassword("s3cret-ä", serverFirst.salt(), serverFirst.iterations());
    last.proof(formatter.clientProof(salted, first, serverFirst, last));
    return last.toBytes();
  }

  @Test
  void scramUsesAPrincipalsFirstTokenAndPlainAnyOfIts() throws Exception {
    KafkaSaslServers servers = new KafkaSaslServers(auth);
    assertThat(exchange(client("SCRAM-SHA-256", "alice", "second"), servers.create("SCRAM-SHA-256"))).isEqualTo(2);
    assertThat(auth.plain("alice", "second")).isEqualTo("alice");
  }

  @Test
  void anUnknownUsersSaltIsTheSameEachTimeAsAKnownUsersIs() {
    assertThat(auth.unmatchable("SCRAM-SHA-256", "mallory").salt())
        .isEqualTo(auth.unmatchable("SCRAM-SHA-256", "mallory").salt())
        .isNotEqualTo(auth.unmatchable("SCRAM-SHA-256", "trudy").salt());
    assertThat(auth.scram("SCRAM-SHA-256", "alice").salt()).isEqualTo(auth.scram("SCRAM-SHA-256", "alice").salt());
  }

  /** PLAIN's message: authzid NUL user NUL password (RFC 4616). */
  private static byte[] plain(String user, String password) {
    return ("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void plainTakesThePrincipalAndItsToken() throws Exception {
    SaslServer server = new KafkaSaslServers(auth).create("PLAIN");
    server.evaluateResponse(plain("alice", "s3cret-ä"));
    assertThat(server.isComplete()).isTrue();
    assertThat(server.getAuthorizationID()).isEqualTo("alice");
  }

  @Test
  void plainRefusesAWrongPasswordAndAnUnknownUserWithTheSameMessage() {
    KafkaSaslServers servers = new KafkaSaslServers(auth);
    String wrong = messageOf(() -> servers.create("PLAIN").evaluateResponse(plain("alice", "nope")));
    String unknown = messageOf(() -> servers.create("PLAIN").evaluateResponse(plain("mallory", "nope")));
    String othersToken = messageOf(() -> servers.create("PLAIN").evaluateResponse(plain("alice", "hunter2")));
    assertThat(wrong).isNotNull().isEqualTo(unknown).isEqualTo(othersToken).doesNotContain("nope", "alice");
  }

  @Test
  void aMechanismNotServedHasNoServer() {
    assertThat(new KafkaSaslServers(auth).create("GSSAPI")).isNull();
    assertThat(new KafkaSaslServers(auth).create("OAUTHBEARER")).isNull();
  }

  @Test
  void theAccessOfAPrincipalIsThePermissionsFiles() {
    assertThat(auth.access("alice").produce("orders")).isTrue();
    assertThat(auth.access("alice").consume("orders")).isFalse();
    assertThat(auth.access("alice").anyOnTopic("payments")).isFalse();
    assertThat(auth.access("alice").producesAnything()).isTrue();
    assertThat(auth.access("bob").adminTopic("payments")).isTrue();
    assertThat(auth.access("bob").consumeGroup("billing")).isFalse();
  }

  private interface Step {
    void run() throws Exception;
  }

  private static String messageOf(Step step) {
    Throwable[] thrown = new Throwable[1];
    assertThatThrownBy(() -> {
      try {
        step.run();
      } catch (Exception e) {
        thrown[0] = e;
        throw e;
      }
    }).isNotNull();
    return thrown[0].getMessage();
  }
}
