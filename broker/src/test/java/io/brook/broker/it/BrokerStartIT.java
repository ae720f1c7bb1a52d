package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What {@code brook broker} refuses to start with, and the effective config it logs when it starts. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class BrokerStartIT {
  /** A broker that should refuse to start but does not would run forever: give up on it after this. */
  static final long REFUSAL_TIMEOUT_S = 60;

  @TempDir Path dir;

  private Exec.Result runBroker(Path dataDir, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    ProcessBuilder pb = Exec.builder(BrokerProcess.command(dataDir, List.of(args)), env, null, dir.resolve("runs"));
    return Exec.await(pb, pb.start(), REFUSAL_TIMEOUT_S);
  }

  /** A free TCP port on the loopback address. */
  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private Path configFile(String... lines) throws IOException {
    return Files.write(dir.resolve("brook.properties"), List.of(lines));
  }

  @Test
  void aSecondBrokerOnTheSameDataDirectoryIsRefusedAndTheFirstKeepsServing() throws Exception {
    Path data = dir.resolve("data");
    try (BrokerProcess first = BrokerProcess.start(data)) {
      Exec.Result second = runBroker(data, Map.of());

      assertThat(second.exitCode()).as(second.toString()).isEqualTo(1);
      assertThat(second.stderr()).contains("data directory " + data.toAbsolutePath() + " is in use by another broker");
      assertThat(first.isAlive()).isTrue();
      assertThat(new Wire(first.channel()).create("still-serving", 1).getPartitionsCount()).isEqualTo(1);
    }

    try (BrokerProcess after = BrokerProcess.start(data)) {
      assertThat(after.currentStartLog()).as("the lock goes with the first broker")
          .contains("Recovered 1 topics, 1 partitions");
    }
  }

  @Test
  void anUnknownKeyInTheConfigFileIsAUsageErrorNamingKeyAndFile() throws Exception {
    Path data = dir.resolve("data");
    Path file = configFile("grpc.threads=4", "no.such.key=1");

    Exec.Result flag = runBroker(data, Map.of(), "--config", file.toString());
    assertThat(flag.exitCode()).as(flag.toString()).isEqualTo(2);
    assertThat(flag.stderr()).contains("unknown key 'no.such.key' in config file " + file);

    Exec.Result env = runBroker(data, Map.of("BROOK_CONFIG", file.toString()));
    assertThat(env.exitCode()).as("file from BROOK_CONFIG: " + env).isEqualTo(2);
    assertThat(env.stderr()).contains("unknown key 'no.such.key' in config file " + file);

    assertThat(data).as("refused before touching the data directory").doesNotExist();
  }

  @Test
  void aBadValueFromTheEnvironmentIsAUsageErrorNamingKeyAndVariable() throws Exception {
    Exec.Result r = runBroker(dir.resolve("data"), Map.of("BROOK_GRPC_THREADS", "abc"));

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
    assertThat(r.stderr()).contains("bad value 'abc' for grpc.threads (from env BROOK_GRPC_THREADS)");
  }

  @Test
  void keysThatContradictEachOtherAreAUsageErrorNamingBothBeforeTheDataDirectoryIsTouched() throws Exception {
    Path data = dir.resolve("data");
    Path file = configFile("group.max.session.timeout.ms=30000");

    Exec.Result sessions = runBroker(data, Map.of(), "--config", file.toString(),
        "--set", "group.min.session.timeout.ms=60000");
    assertThat(sessions.exitCode()).as(sessions.toString()).isEqualTo(2);
    assertThat(sessions.stderr()).contains("brook broker: group.min.session.timeout.ms=60000 (from flag) is above "
        + "group.max.session.timeout.ms=30000 (from file " + file + "): every JoinGroup would be refused");
    assertThat(sessions.stderr().lines().filter(l -> l.contains("brook broker:"))).as("one line").hasSize(1);

    Exec.Result disk = runBroker(data, Map.of("BROOK_DISK_FREE_PER_WRITER_BYTES", "0"),
        "--set", "disk.free.min.bytes=1000", "--set", "disk.headroom.bytes=1000");
    assertThat(disk.exitCode()).as(disk.toString()).isEqualTo(2);
    assertThat(disk.stderr()).contains("disk.free.min.bytes=1000 (from flag) is not above disk.headroom.bytes=1000 "
        + "(from flag) while disk.free.per.writer.bytes=0 (from env BROOK_DISK_FREE_PER_WRITER_BYTES)");

    Exec.Result partitions = runBroker(data, Map.of(), "--set", "default.partitions=3", "--set", "max.partitions=2");
    assertThat(partitions.exitCode()).as(partitions.toString()).isEqualTo(2);
    assertThat(partitions.stderr()).contains("default.partitions=3 (from flag) is above max.partitions=2 (from flag)");

    String address = "127.0.0.1:" + freePort(); // refused before it is bound
    List<String> sameAddress = new ArrayList<>(BrokerProcess.command(data, List.of()));
    sameAddress.set(sameAddress.indexOf("--grpc-listen") + 1, address);
    sameAddress.set(sameAddress.indexOf("--http-listen") + 1, address);
    ProcessBuilder pb = Exec.builder(sameAddress, Map.of(), null, dir.resolve("runs"));
    Exec.Result listen = Exec.await(pb, pb.start(), REFUSAL_TIMEOUT_S);
    assertThat(listen.exitCode()).as(listen.toString()).isEqualTo(2);
    assertThat(listen.stderr()).contains("grpc.listen=" + address + " (from flag) and http.listen=" + address
        + " (from flag) are the same address");

    assertThat(data).as("refused before touching the data directory").doesNotExist();
  }

  @Test
  void anUnknownBrookVariableIsAUsageError() throws Exception {
    Exec.Result r = runBroker(dir.resolve("data"), Map.of("BROOK_GRPC_THREDS", "4"));

    assertThat(r.exitCode()).as(r.toString()).isEqualTo(2);
    assertThat(r.stderr()).contains("unknown environment variable BROOK_GRPC_THREDS");
  }

  @Test
  void kubernetesServiceLinksAreSetAsideNamedOnceInTheLogAndTheBrokerServes() throws Exception {
    // what a pod gets for the chart's Service "brook" (ports grpc 7070, http 7080) with service links on
    Map<String, String> links = Map.ofEntries(Map.entry("BROOK_SERVICE_HOST", "10.96.12.34"),
        Map.entry("BROOK_SERVICE_PORT", "7070"), Map.entry("BROOK_SERVICE_PORT_GRPC", "7070"),
        Map.entry("BROOK_SERVICE_PORT_HTTP", "7080"), Map.entry("BROOK_PORT", "tcp://10.96.12.34:7070"),
        Map.entry("BROOK_PORT_7070_TCP", "tcp://10.96.12.34:7070"), Map.entry("BROOK_PORT_7070_TCP_PROTO", "tcp"),
        Map.entry("BROOK_PORT_7070_TCP_PORT", "7070"), Map.entry("BROOK_PORT_7070_TCP_ADDR", "10.96.12.34"),
        Map.entry("BROOK_PORT_7080_TCP", "tcp://10.96.12.34:7080"), Map.entry("BROOK_PORT_7080_TCP_PROTO", "tcp"),
        Map.entry("BROOK_PORT_7080_TCP_PORT", "7080"), Map.entry("BROOK_PORT_7080_TCP_ADDR", "10.96.12.34"));

    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), links)) {
      String log = broker.currentStartLog();
      assertThat(log).contains("Ignored 13 Kubernetes service-link variables of Service brook, not broker settings: "
          + "BROOK_PORT, BROOK_PORT_7070_TCP, BROOK_PORT_7070_TCP_ADDR, BROOK_PORT_7070_TCP_PORT, "
          + "BROOK_PORT_7070_TCP_PROTO, BROOK_PORT_7080_TCP, BROOK_PORT_7080_TCP_ADDR, BROOK_PORT_7080_TCP_PORT, "
          + "BROOK_PORT_7080_TCP_PROTO, BROOK_SERVICE_HOST, BROOK_SERVICE_PORT, BROOK_SERVICE_PORT_GRPC, "
          + "BROOK_SERVICE_PORT_HTTP\n");
      assertThat(log.split("service-link", -1)).as("said once").hasSize(2);
      assertThat(new Wire(broker.channel()).create("linked", 1).getPartitionsCount()).isEqualTo(1);
    }

    Exec.Result r = runBroker(dir.resolve("data2"), Map.of("BROOK_PORT", "7070"));
    assertThat(r.exitCode()).as("a service-link name with a value Kubernetes does not set: " + r).isEqualTo(2);
    assertThat(r.stderr()).contains("unknown environment variable BROOK_PORT: ")
        .contains("the value '7070' is not what Kubernetes sets");
  }

  @Test
  void theEffectiveConfigIsLoggedWithWhereEachValueCameFrom() throws Exception {
    Path data = dir.resolve("data");
    Path file = configFile("grpc.threads=3", "read.threads=3", "default.partitions=2");
    Map<String, String> env = Map.of("BROOK_GRPC_THREADS", "5", "BROOK_READ_THREADS", "6",
        "BROOK_BROKER", "ignored:1");

    try (BrokerProcess broker = BrokerProcess.start(data, env, "--config", file.toString(),
        "--set", "grpc.threads=7")) {
      assertThat(broker.currentStartLog())
          .contains("  grpc.threads = 7  (flag)\n")
          .contains("  read.threads = 6  (env BROOK_READ_THREADS)\n")
          .contains("  default.partitions = 2  (file " + file + ")\n")
          .contains("  data.dir = " + data + "  (flag)\n")
          .contains("  grpc.listen = 127.0.0.1:0  (flag)\n")
          .contains("  max.batch.records = 100000  (default)\n");

      assertThat(new Wire(broker.channel()).create("defaulted", 0).getPartitionsCount())
          .as("default.partitions from the file is in effect").isEqualTo(2);
    }
  }
}
