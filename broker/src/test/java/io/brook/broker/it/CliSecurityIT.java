package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** bin/brook against a broker with TLS and tokens: --tls-ca with --token, --token-file or $BROOK_TOKEN. */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class CliSecurityIT {
  static final String TOKEN = "cli-token-31415";

  @TempDir static Path dir;
  static BrokerProcess broker;
  static TestCerts certs;

  @BeforeAll
  static void startBroker() throws Exception {
    certs = TestCerts.create(dir.resolve("certs"));
    Path tokens = Files.writeString(dir.resolve("tokens"), "# the CLI user\nops=" + TOKEN + "\n\nreader=r-1=x\n");
    Path permissions = Files.writeString(dir.resolve("permissions"), "ops * topic:*\nops * group:*\n");
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "tls.cert.file=" + certs.server.cert(),
        "--set", "tls.key.file=" + certs.server.key(), "--set", "auth.enabled=true",
        "--set", "auth.tokens.file=" + tokens, "--set", "auth.permissions.file=" + permissions);
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  static Exec.Result brook(Map<String, String> env, Path stdin, String... args) throws Exception {
    List<String> command = new ArrayList<>(CliIT.command(args));
    command.addAll(List.of("--broker", broker.address(), "--tls-ca", certs.caCert.toString()));
    Exec.Result r = Exec.run(command, CliIT.withJava(env), stdin, dir.resolve("runs"));
    assertThat(r.stdout() + r.stderr()).doesNotContain(TOKEN);
    return r;
  }

  @Test
  void topicsProduceAndConsumeWithTlsAndAToken() throws Exception {
    Path tokenFile = Files.writeString(dir.resolve("token"), TOKEN + "\n");
    Exec.Result created = brook(Map.of(), null, "topic", "create", "secure-orders", "--token", TOKEN);
    assertThat(created.exitCode()).as(created.toString()).isZero();
    Exec.Result list = brook(Map.of(), null, "topic", "list", "--token-file", tokenFile.toString());
    assertThat(list.exitCode()).as(list.toString()).isZero();
    assertThat(list.stdout()).contains("secure-orders");

    Path lines = Files.write(dir.resolve("in.txt"), List.of("a", "b", "c"), StandardCharsets.UTF_8);
    Exec.Result produced = brook(Map.of("BROOK_TOKEN", TOKEN), lines, "produce", "secure-orders");
    assertThat(produced.exitCode()).as(produced.toString()).isZero();
    Exec.Result consumed = brook(Map.of("BROOK_TOKEN", TOKEN), null, "consume", "secure-orders", "--from", "earliest",
        "--max", "3");
    assertThat(consumed.exitCode()).as(consumed.toString()).isZero();
    assertThat(consumed.lines()).containsExactly("a", "b", "c");
    Exec.Result groups = brook(Map.of("BROOK_TOKEN", TOKEN), null, "group", "list");
    assertThat(groups.exitCode()).as(groups.toString()).isZero();
  }

  @Test
  void withoutOrWithAWrongTokenTheCliSaysSo() throws Exception {
    Exec.Result none = brook(Map.of(), null, "topic", "list");
    assertThat(none.exitCode()).as(none.toString()).isNotZero();
    assertThat(none.stderr()).contains("no bearer token or client certificate");
    Exec.Result wrong = brook(Map.of("BROOK_TOKEN", "not-" + TOKEN.substring(4)), null, "topic", "list");
    assertThat(wrong.stderr()).as(wrong.toString()).contains("unknown bearer token").doesNotContain("not-");
  }

  @Test
  void aTokenFileWithAnEmptyFirstLineIsAUsageError() throws Exception {
    for (String content : List.of("\n" + TOKEN + "\n", "", "   \n")) {
      Path tokenFile = Files.writeString(dir.resolve("empty-token-" + System.nanoTime()), content);
      Exec.Result r = brook(Map.of("BROOK_TOKEN", TOKEN), null, "topic", "list", "--token-file", tokenFile.toString());
      assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
      assertThat(r.stderr()).contains("--token-file: the first line of " + tokenFile + " is empty");
    }
  }
}
