package io.brook.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.client.admin.BrookAdmin;
import io.brook.client.errors.ConfigException;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecurityTest {
  @TempDir Path dir;

  @Test
  void aTokenAloneIsPlaintextAndNeverPrinted() {
    Security s = Security.builder().token(" s3cret-token ").build();
    assertThat(s.tls()).isFalse();
    assertThat(s.token()).contains("s3cret-token");
    assertThat(s.toString()).doesNotContain("s3cret").contains("****");
  }

  @Test
  void aCaFileOrAClientCertificateMeansTls() {
    assertThat(Security.plaintext().tls()).isFalse();
    assertThat(Security.builder().tls().build().tls()).isTrue();
  }

  @Test
  void missingFilesAndAHalfClientCertificateAreNamed() {
    assertThatThrownBy(() -> Security.builder().trustCa(dir.resolve("ca.pem"))
        .clientCertificate(dir.resolve("c.pem"), null).build())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("trustCa " + dir.resolve("ca.pem") + " is not a readable file")
        .hasMessageContaining("clientCertificate needs both a certificate and a key file");
  }

  @Test
  void aTokenWithSpacesInsideIsRefused() {
    assertThatThrownBy(() -> Security.builder().token("two words").build())
        .hasMessageContaining("token must be printable ASCII");
  }

  @Test
  void securityWithASharedChannelIsAConfigError() {
    ManagedChannel shared = Security.plaintext().newChannel("localhost:1");
    try {
      assertThatThrownBy(() -> BrookAdmin.builder().channel(shared).security(Security.builder().token("t").build())
          .build()).isInstanceOf(ConfigException.class).hasMessageContaining("security cannot be combined");
    } finally {
      shared.shutdownNow();
    }
  }
}
