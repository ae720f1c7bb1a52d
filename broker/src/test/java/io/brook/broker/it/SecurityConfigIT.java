package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Bad TLS and auth settings refuse the start with one line naming the key and the file, no stack trace. */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SecurityConfigIT {
  @TempDir static Path dir;
  static TestCerts certs;

  @BeforeAll
  static void makeCertificates() throws Exception {
    certs = TestCerts.create(dir.resolve("certs"));
  }

  private static String refused(String... settings) throws IOException, InterruptedException {
    List<String> args = new ArrayList<>();
    for (String s : settings) {
      args.addAll(List.of("--set", s));
    }
    Path data = dir.resolve("data-" + System.nanoTime());
    ProcessBuilder pb = Exec.builder(BrokerProcess.command(data, args), Map.of(), null, dir.resolve("runs"));
    Exec.Result r = Exec.await(pb, pb.start(), BrokerStartIT.REFUSAL_TIMEOUT_S);
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
    assertThat(r.stderr()).as("no stack trace").doesNotContain("\tat ").doesNotContain("Exception");
    assertThat(data).as("refused before touching the data directory").doesNotExist();
    return r.stderr();
  }

  @Test
  void aMalformedPermissionsLineNamesFileAndLine() throws Exception {
    Path file = Files.writeString(dir.resolve("perms"), "# ok\nalice produce topic:orders\nbob consume orders\n");
    assertThat(refused("auth.enabled=true", "auth.tokens=bob=t1", "auth.permissions.file=" + file))
        .contains("auth.permissions.file " + file + ":3: resource 'orders' must be topic:NAME or group:NAME");
    Path unknown = Files.writeString(dir.resolve("perms2"), "alice write topic:orders\n");
    assertThat(refused("auth.enabled=true", "auth.tokens=alice=t1", "auth.permissions.file=" + unknown))
        .contains(unknown + ":1: unknown permission 'write'");
  }

  @Test
  void aMissingTokensFileIsNamed() throws Exception {
    Path missing = dir.resolve("no-such-tokens");
    assertThat(refused("auth.enabled=true", "auth.tokens.file=" + missing))
        .contains("auth.tokens.file: " + missing + " does not exist");
  }

  @Test
  void aTokensLineWithoutEqualsNamesTheLineButNotTheToken() throws Exception {
    Path file = Files.writeString(dir.resolve("tokens"), "alice=ok-token\nsecret-without-principal\n");
    assertThat(refused("auth.enabled=true", "auth.tokens.file=" + file))
        .contains(file + ":2: expected principal=token").doesNotContain("secret-without-principal");
  }

  @Test
  void authWithNoWayInIsRefused() throws Exception {
    assertThat(refused("auth.enabled=true")).contains("auth.enabled=true but nobody can authenticate");
  }

  @Test
  void badTlsFilesAreNamed() throws Exception {
    Path missing = dir.resolve("missing.pem");
    assertThat(refused("tls.cert.file=" + missing, "tls.key.file=" + certs.server.key()))
        .contains("tls.cert.file: " + missing + " does not exist");
    Path notPem = Files.writeString(dir.resolve("not.pem"), "hello\n");
    assertThat(refused("tls.cert.file=" + notPem, "tls.key.file=" + certs.server.key()))
        .contains("tls.cert.file: " + notPem + " holds no PEM certificate");
    assertThat(refused("tls.cert.file=" + certs.server.cert(), "tls.key.file=" + notPem))
        .contains("tls.key.file: " + notPem + " holds no PEM private key");
    TestCerts.Pair other = certs.client("someone");
    assertThat(refused("tls.cert.file=" + certs.server.cert(), "tls.key.file=" + other.key()))
        .contains("tls.key.file: the key in " + other.key() + " does not match the certificate in "
            + certs.server.cert());
    assertThat(refused("tls.cert.file=" + certs.server.cert(), "tls.key.file=" + certs.encryptedServerKey("pw"),
        "tls.key.password=wrong")).contains("tls.key.file: cannot decrypt");
  }

  @Test
  void tlsSettingsThatWouldBeIgnoredAreRefused() throws Exception {
    assertThat(refused("tls.key.password=pw")).contains("tls.key.password is set without tls.key.file")
        .doesNotContain("=pw");
    assertThat(refused("tls.cert.file=" + certs.server.cert(), "tls.key.file=" + certs.server.key(),
        "tls.client.ca.file=" + certs.caCert, "tls.client.auth=none"))
        .contains("tls.client.ca.file is set with tls.client.auth=none: remove tls.client.ca.file or choose "
            + "optional/require");
  }
}
