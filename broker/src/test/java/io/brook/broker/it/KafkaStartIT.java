package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What the Kafka listener tells clients: its advertised address and the cluster id, kept across restarts. */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class KafkaStartIT {
  private static final Pattern LISTENER = Pattern.compile(
      "Kafka on 127\\.0\\.0\\.1:(\\d+) \\(plaintext\\), advertised as (\\S+), cluster id ([A-Za-z0-9_-]{22})\\n");
  @TempDir Path dir;

  private static Matcher listenerLine(BrokerProcess broker) throws Exception {
    Matcher m = LISTENER.matcher(broker.currentStartLog());
    assertThat(m.find()).as(broker.currentStartLog()).isTrue();
    return m;
  }

  @Test
  void theClusterIdIsMadeOnceAndKeptAcrossRestarts() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      Matcher first = listenerLine(broker);
      String id = first.group(3);
      assertThat(first.group(2)).as("the bound address, with the real port").isEqualTo("127.0.0.1:"
          + broker.kafkaPort());
      assertThat(Files.readString(dir.resolve("data").resolve("cluster.id")).strip()).isEqualTo(id);
      broker.stop();
      broker.restart();
      assertThat(listenerLine(broker).group(3)).isEqualTo(id);
      broker.kill9();
      broker.restart();
      assertThat(listenerLine(broker).group(3)).isEqualTo(id);
    }
  }

  @Test
  void theAdvertisedAddressIsWhatKafkaAdvertisedSays() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set",
        "kafka.advertised=brook.example:19092")) {
      assertThat(listenerLine(broker).group(2)).isEqualTo("brook.example:19092");
    }
  }

  @Test
  void aKafkaPortInUseRefusesTheStartNamingTheKey() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      String address = "127.0.0.1:" + taken.getLocalPort(); // e.g. an Apache Kafka already on 9092
      Path data = dir.resolve("data");
      ProcessBuilder pb = Exec.builder(BrokerProcess.command(data, List.of("--kafka-listen", address)), Map.of(),
          null, dir.resolve("runs"));
      Exec.Result r = Exec.await(pb, pb.start(), BrokerStartIT.REFUSAL_TIMEOUT_S);
      assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
      assertThat(r.stderr()).contains("cannot listen for Kafka clients on " + address + " (kafka.listen): ")
          .doesNotContain("\tat ");
    }
  }

  @Test
  void theDefaultKafkaPortInUseLeavesTheListenerOffAndTheBrokerServing() throws Exception {
    ServerSocket held = null;
    try {
      try {
        held = new ServerSocket(9092, 1, InetAddress.getByName("localhost"));
      } catch (java.net.BindException alreadyTaken) {
        // something else holds localhost:9092 (an Apache Kafka, a developer's broker): the same case
      }
      List<String> cmd = new java.util.ArrayList<>(BrokerProcess.command(dir.resolve("data"), List.of()));
      int at = cmd.indexOf("kafka.listen=127.0.0.1:0"); // left at its default: localhost:9092
      cmd.remove(at);
      cmd.remove(at - 1);
      Path log = dir.resolve("default-port.log");
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
      pb.environment().keySet().removeIf(k -> k.startsWith("BROOK_"));
      Process broker = pb.start();
      try {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BrokerProcess.START_TIMEOUT_S);
        while (System.nanoTime() < deadline && broker.isAlive() && !Files.readString(log).contains("Brook ready")) {
          Thread.sleep(100);
        }
        String out = Files.readString(log);
        assertThat(out).as(out).contains("Kafka listener off: cannot listen for Kafka clients on localhost:9092 "
            + "(kafka.listen)").contains("Brook ready: gRPC on 127.0.0.1:").contains(", Kafka off, ");
        assertThat(broker.isAlive()).isTrue();
      } finally {
        broker.destroyForcibly().waitFor();
      }
    } finally {
      if (held != null) {
        held.close();
      }
    }
  }

  @Test
  void aDamagedClusterIdRefusesTheStartNamingTheFile() throws Exception {
    Path data = Files.createDirectories(dir.resolve("data"));
    Files.writeString(data.resolve("cluster.id"), "not-an-id\n");
    ProcessBuilder pb = Exec.builder(BrokerProcess.command(data, List.of("--set", "kafka.listen=127.0.0.1:0")),
        Map.of(), null, dir.resolve("runs"));
    Exec.Result r = Exec.await(pb, pb.start(), BrokerStartIT.REFUSAL_TIMEOUT_S);
    assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
    assertThat(r.stderr()).contains(data.resolve("cluster.id") + " does not hold a cluster id (a 22-character "
        + "base64 UUID): 'not-an-id'").doesNotContain("\tat ");
  }
}
