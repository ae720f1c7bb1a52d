package io.brook.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.storage.SegmentRoll;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Resolution of the broker's settings: defaults < file < BROOK_ environment < flags, and what is refused. */
class BrokerConfigTest {
  @TempDir Path dir;

  private Path file(String... lines) throws IOException {
    Path f = dir.resolve("brook.properties");
    Files.writeString(f, String.join("\n", lines) + "\n");
    return f;
  }

  @Test
  void defaultsApplyWhenNothingIsGiven() {
    BrokerConfig c = BrokerConfig.defaults();

    assertThat(c.get(BrokerKeys.DATA_DIR)).isEqualTo(Path.of("data"));
    InetSocketAddress listen = c.get(BrokerKeys.GRPC_LISTEN);
    assertThat(listen.getHostString()).isEqualTo("localhost");
    assertThat(listen.getPort()).isEqualTo(7070);
    assertThat(c.get(BrokerKeys.GRPC_THREADS)).isGreaterThanOrEqualTo(4);
    assertThat(c.get(BrokerKeys.READ_THREADS)).isGreaterThanOrEqualTo(2);
    assertThat(c.get(BrokerKeys.MAX_REQUEST_BYTES)).isEqualTo(8 << 20);
    assertThat(c.get(BrokerKeys.MAX_BATCH_RECORDS)).isEqualTo(100_000);
    assertThat(c.get(BrokerKeys.GRPC_MAX_CONCURRENT_STREAMS)).isEqualTo(1000);
    assertThat(c.get(BrokerKeys.MAX_TOPICS)).isEqualTo(1000);
    assertThat(c.get(BrokerKeys.MAX_PARTITIONS)).isEqualTo(2000);
    assertThat(c.get(BrokerKeys.MAX_GROUPS)).isEqualTo(1000);
    assertThat(c.get(BrokerKeys.FETCH_MAX_WAIT_MS)).isEqualTo(30_000L);
    assertThat(c.get(BrokerKeys.DEFAULT_PARTITIONS)).isEqualTo(1);
    assertThat(c.get(BrokerKeys.DEFAULT_SEGMENT_ROLL)).isEqualTo(SegmentRoll.HOUR);
    assertThat(c.get(BrokerKeys.DEFAULT_RETENTION_BYTES)).isEqualTo(-1L);
    assertThat(c.describe().lines()).hasSize(BrokerKeys.ALL.size()).allSatisfy(l -> assertThat(l).endsWith("(default)"));
    assertThat(c.describe()).contains("  grpc.listen = localhost:7070  (default)\n");
  }

  @Test
  void flagBeatsEnvironmentWhichBeatsFileWhichBeatsDefault() throws IOException {
    Path f = file("grpc.threads=3", "read.threads=3", "default.partitions=2");
    Map<String, String> env = Map.of("BROOK_GRPC_THREADS", "5", "BROOK_READ_THREADS", "6");
    Map<String, String> flags = Map.of("grpc.threads", "7");

    BrokerConfig c = BrokerConfig.resolve(f, env, flags);

    assertThat(c.get(BrokerKeys.GRPC_THREADS)).isEqualTo(7);
    assertThat(c.get(BrokerKeys.READ_THREADS)).isEqualTo(6);
    assertThat(c.get(BrokerKeys.DEFAULT_PARTITIONS)).isEqualTo(2);
    assertThat(c.get(BrokerKeys.MAX_BATCH_RECORDS)).isEqualTo(100_000);
    assertThat(c.describe())
        .contains("  grpc.threads = 7  (flag)\n")
        .contains("  read.threads = 6  (env BROOK_READ_THREADS)\n")
        .contains("  default.partitions = 2  (file " + f + ")\n")
        .contains("  max.batch.records = 100000  (default)\n");

    BrokerConfig withoutFlag = BrokerConfig.resolve(f, env, Map.of());
    assertThat(withoutFlag.get(BrokerKeys.GRPC_THREADS)).isEqualTo(5);
    assertThat(withoutFlag.describe()).contains("  grpc.threads = 5  (env BROOK_GRPC_THREADS)\n");

    BrokerConfig fileOnly = BrokerConfig.resolve(f, Map.of(), Map.of());
    assertThat(fileOnly.get(BrokerKeys.GRPC_THREADS)).isEqualTo(3);
    assertThat(fileOnly.describe()).contains("  grpc.threads = 3  (file " + f + ")\n");
  }

  @Test
  void valuesAreTrimmedAndTypedPerKey() throws IOException {
    Path f = file("grpc.listen = 127.0.0.1:0 ", "default.segment.roll=1D", "data.dir=/var/lib/brook");
    BrokerConfig c = BrokerConfig.resolve(f, Map.of("BROOK_DEFAULT_RETENTION_MS", " -1 "), Map.of());

    assertThat(c.get(BrokerKeys.GRPC_LISTEN).getHostString()).isEqualTo("127.0.0.1");
    assertThat(c.get(BrokerKeys.GRPC_LISTEN).getPort()).isZero();
    assertThat(c.get(BrokerKeys.DEFAULT_SEGMENT_ROLL)).isEqualTo(SegmentRoll.DAY);
    assertThat(c.get(BrokerKeys.DATA_DIR)).isEqualTo(Path.of("/var/lib/brook"));
    assertThat(c.get(BrokerKeys.DEFAULT_RETENTION_MS)).isEqualTo(-1L);
  }

  @Test
  void anUnknownKeyInTheFileIsRefusedNamingTheKeyAndTheFile() throws IOException {
    Path f = file("grpc.threads=4", "grpc.thread=4");

    assertThatThrownBy(() -> BrokerConfig.resolve(f, Map.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown key 'grpc.thread'")
        .hasMessageContaining(f.toString())
        .hasMessageContaining("did you mean grpc.threads?");
  }

  @Test
  void moreDefaultPartitionsThanOneTopicMayHaveAreRefused() {
    // else every topic created without a count would be refused ("partition count must be between 1 and 10000")
    assertThatThrownBy(() -> BrokerConfig.resolve(null, Map.of(), Map.of("default.partitions", "10001")))
        .isInstanceOf(ConfigException.class)
        .hasMessage("bad value '10001' for default.partitions (from flag): must be between 1 and 10000");
    assertThat(BrokerConfig.resolve(null, Map.of(), Map.of("default.partitions", "10000"))
        .get(BrokerKeys.DEFAULT_PARTITIONS)).isEqualTo(10_000);
  }

  @Test
  void anUnknownKeyOnTheCommandLineIsRefused() {
    assertThatThrownBy(() -> BrokerConfig.resolve(null, Map.of(), Map.of("no.such.key", "1")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown key 'no.such.key' on the command line");
  }

  @Test
  void aMissingFileIsRefusedNamingIt() {
    Path missing = dir.resolve("missing.properties");

    assertThatThrownBy(() -> BrokerConfig.resolve(missing, Map.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("cannot read config file " + missing);
  }

  @Test
  void anUnknownBrookEnvironmentVariableIsRefusedNamingIt() {
    Map<String, String> env = Map.of("BROOK_GRPC_THREDS", "4", "PATH", "/usr/bin");

    assertThatThrownBy(() -> BrokerConfig.resolve(null, env, Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown environment variable BROOK_GRPC_THREDS");
  }

  @Test
  void theClientsAndScriptsOwnBrookVariablesAndOtherVariablesAreIgnored() {
    Map<String, String> env = new HashMap<>();
    for (String name : List.of("BROOK_BROKER", "BROOK_CONFIG", "BROOK_JAVA", "BROOK_JAVA_OPTS", "BROOK_HOME",
        "BROOK_TOOLS_DIR", "BROOK_SKIP_MAVEN", "BROOK_TEST_BUDGET_S")) {
      env.put(name, "not a setting value");
    }
    env.put("PATH", "/usr/bin");
    env.put("GRPC_THREADS", "not ours");
    env.put("brook_grpc_threads", "not ours either");

    BrokerConfig c = BrokerConfig.resolve(null, env, Map.of());

    assertThat(c.describe()).isEqualTo(BrokerConfig.defaults().describe());
  }

  @Test
  void aListenAddressWithoutPortIsRefusedNamingKeyAndSource() throws IOException {
    Path f = file("grpc.listen=localhost");
    assertThatThrownBy(() -> BrokerConfig.resolve(f, Map.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("bad value 'localhost' for grpc.listen (from file " + f + ")")
        .hasMessageContaining("expected host:port");

    assertThatThrownBy(() -> BrokerConfig.resolve(null, Map.of("BROOK_GRPC_LISTEN", "localhost:"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("grpc.listen (from env BROOK_GRPC_LISTEN)");

    assertThatThrownBy(() -> BrokerConfig.resolve(null, Map.of(), Map.of("grpc.listen", "localhost:70000")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("grpc.listen (from flag)")
        .hasMessageContaining("port must be 0..65535");
  }

  @Test
  void negativeOrNonNumericThreadCountsAreRefusedNamingKeyAndSource() {
    assertThatThrownBy(() -> BrokerConfig.resolve(null, Map.of("BROOK_GRPC_THREADS", "-1"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("bad value '-1' for grpc.threads (from env BROOK_GRPC_THREADS)")
        .hasMessageContaining("must be > 0");

    assertThatThrownBy(() -> BrokerConfig.resolve(null, Map.of(), Map.of("read.threads", "0")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("read.threads (from flag)");

    assertThatThrownBy(() -> BrokerConfig.resolve(null, Map.of("BROOK_GRPC_THREADS", "abc"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("bad value 'abc' for grpc.threads (from env BROOK_GRPC_THREADS)");
  }

  @Test
  void anUnknownSegmentRollIsRefusedNamingKeyAndSource() throws IOException {
    Path f = file("default.segment.roll=3h");

    assertThatThrownBy(() -> BrokerConfig.resolve(f, Map.of(), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("bad value '3h' for default.segment.roll (from file " + f + ")")
        .hasMessageContaining("unknown segment roll '3h'");
  }

  @Test
  void aBadValueIsRefusedEvenWhenAHigherSourceOverridesAnotherKey() throws IOException {
    Path f = file("fetch.max.wait.ms=-5");

    assertThatThrownBy(() -> BrokerConfig.resolve(f, Map.of(), Map.of("grpc.threads", "2")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("fetch.max.wait.ms (from file " + f + ")")
        .hasMessageContaining("must be >= 0");
  }

  @Test
  void secretsAreMaskedInTheLoggedConfigButUsableAndUnsetSecretsShowEmpty() throws IOException {
    Path f = file("tls.key.password=hunter2-key");
    BrokerConfig c = BrokerConfig.resolve(f, Map.of("BROOK_AUTH_TOKENS", "alice=s3cret-token"), Map.of());

    assertThat(c.get(BrokerKeys.AUTH_TOKENS)).isEqualTo("alice=s3cret-token");
    assertThat(c.get(BrokerKeys.TLS_KEY_PASSWORD)).isEqualTo("hunter2-key");
    assertThat(c.describe())
        .doesNotContain("s3cret-token").doesNotContain("hunter2-key")
        .contains("  auth.tokens = ****  (env BROOK_AUTH_TOKENS)\n")
        .contains("  tls.key.password = ****  (file " + f + ")\n");
    assertThat(BrokerConfig.defaults().describe()).contains("  auth.tokens =   (default)\n");
  }

  @Test
  void optionalFilesAreEmptyUntilGivenAndEnumsNameTheirChoices() {
    assertThat(BrokerConfig.defaults().get(BrokerKeys.TLS_CERT_FILE)).isEmpty();
    BrokerConfig c = BrokerConfig.resolve(null, Map.of(), Map.of("tls.cert.file", "certs/broker.pem",
        "tls.client.auth", "OPTIONAL"));
    assertThat(c.get(BrokerKeys.TLS_CERT_FILE)).contains(Path.of("certs/broker.pem"));
    assertThat(c.get(BrokerKeys.TLS_CLIENT_AUTH)).isEqualTo(BrokerKeys.ClientAuth.OPTIONAL);
    assertThat(c.describe()).contains("  tls.cert.file = certs/broker.pem  (flag)\n");
    assertThatThrownBy(() -> BrokerConfig.resolve(null, Map.of(), Map.of("tls.client.auth", "maybe")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("tls.client.auth (from flag)")
        .hasMessageContaining("must be one of [none, optional, require]");
  }
}
