package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.client.Security;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.NewTopic;
import io.brook.client.admin.TopicInfo;
import io.brook.client.errors.AuthorizationException;
import io.brook.client.errors.BrokerUnavailableException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** TLS and mutual TLS on the real broker, with certificates made for the test. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TlsIT {
  @TempDir static Path dir;
  static TestCerts certs;

  @BeforeAll
  static void makeCertificates() throws Exception {
    certs = TestCerts.create(dir.resolve("certs"));
  }

  private static BrookAdmin admin(BrokerProcess broker, Security security) {
    return BrookAdmin.builder().broker(broker.address()).security(security).requestTimeout(Duration.ofSeconds(5))
        .build();
  }

  @Test
  void onlyClientsTrustingTheCaTalkToATlsBroker() throws Exception {
    Path key = certs.encryptedServerKey("k3y-pass"); // the encrypted form is read with tls.key.password
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("tls"), "--set",
        "tls.cert.file=" + certs.server.cert(), "--set", "tls.key.file=" + key, "--set", "tls.key.password=k3y-pass")) {
      assertThat(broker.currentStartLog()).contains("Security: TLS on, mTLS off; auth off")
          .doesNotContain("k3y-pass");

      try (BrookAdmin trusting = admin(broker, Security.builder().trustCa(certs.caCert).build())) {
        assertThat(trusting.createTopic(NewTopic.of("secured")).name()).isEqualTo("secured");
      }
      try (BrookAdmin plaintext = admin(broker, Security.plaintext())) {
        assertThatThrownBy(plaintext::listTopics).as("plaintext to a TLS port")
            .isInstanceOf(BrokerUnavailableException.class);
      }
      try (BrookAdmin wrongCa = admin(broker, Security.builder().trustCa(certs.otherCa()).build())) {
        assertThatThrownBy(wrongCa::listTopics).as("a certificate the client does not trust")
            .isInstanceOf(BrokerUnavailableException.class);
      }
    }
  }

  @Test
  void mutualTlsRequiresAClientCertificateAndItsCnIsThePrincipal() throws Exception {
    Path permissions = Files.writeString(dir.resolve("mtls-permissions"), "alice admin topic:alice-*\n");
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("mtls"), "--set",
        "tls.cert.file=" + certs.server.cert(), "--set", "tls.key.file=" + certs.server.key(),
        "--set", "tls.client.ca.file=" + certs.caCert, "--set", "tls.client.auth=require",
        "--set", "auth.enabled=true", "--set", "auth.permissions.file=" + permissions)) {
      assertThat(broker.currentStartLog()).contains("Security: TLS on, mTLS require; auth on: 0 principals with "
          + "tokens, client certificate CNs, 1 permission rules");

      try (BrookAdmin noCertificate = admin(broker, Security.builder().trustCa(certs.caCert).build())) {
        assertThatThrownBy(noCertificate::listTopics).isInstanceOf(BrokerUnavailableException.class);
      }
      TestCerts.Pair alice = certs.client("alice");
      try (BrookAdmin asAlice = admin(broker, Security.builder().trustCa(certs.caCert)
          .clientCertificate(alice.cert(), alice.key()).build())) {
        asAlice.createTopic(NewTopic.of("alice-orders"));
        asAlice.createTopic(NewTopic.of("alice-2"));
        assertThat(asAlice.listTopics()).extracting(TopicInfo::name).containsExactlyInAnyOrder("alice-orders", "alice-2");
        assertThatThrownBy(() -> asAlice.createTopic(NewTopic.of("bob-orders")))
            .isInstanceOf(AuthorizationException.class)
            .hasMessageContaining("principal alice lacks admin on topic bob-orders");
      }
      TestCerts.Pair mallory = certs.client("mallory");
      try (BrookAdmin asMallory = admin(broker, Security.builder().trustCa(certs.caCert)
          .clientCertificate(mallory.cert(), mallory.key()).build())) {
        assertThat(asMallory.listTopics()).as("mallory has no permission on alice's topics").isEmpty();
        assertThatThrownBy(() -> asMallory.deleteTopic("alice-orders"))
            .hasMessageContaining("principal mallory lacks admin on topic alice-orders");
      }
    }
  }
}
