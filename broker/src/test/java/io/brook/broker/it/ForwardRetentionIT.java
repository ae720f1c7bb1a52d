package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.config.BrokerConfig;
import io.brook.broker.core.ForwardRouteStatus;
import io.brook.broker.server.Broker;
import io.brook.broker.storage.ManualClock;
import io.brook.broker.storage.chronicle.ChronicleLog;
import io.brook.protocol.v1.CreateTopicRequest;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A forward route whose Kafka is down while retention runs (D68), on a real broker in process whose
 * clock the test moves (as RetentionIT): records deleted before they were forwarded are counted; with
 * retention.waits retention keeps them, but only while free space is above the produce threshold.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ForwardRetentionIT {
  static final long HOUR = RetentionIT.HOUR;

  @TempDir Path dir;
  final ManualClock clock = new ManualClock(RetentionIT.T0);
  Broker broker;
  ManagedChannel channel;
  Wire wire;

  /** A route to a port where no Kafka listens: every attempt fails within a second. */
  void start(boolean retentionWaits, Map<String, String> more) throws IOException {
    Path config = dir.resolve("brook.properties");
    Files.write(config, List.of("forward.r.source=events",
        "forward.r.bootstrap.servers=127.0.0.1:" + BrokerStartIT.freePort(),
        "forward.r.retention.waits=" + retentionWaits, "forward.r.backoff.max.ms=200",
        "forward.r.kafka.max.block.ms=300", "forward.r.kafka.request.timeout.ms=300",
        "forward.r.kafka.delivery.timeout.ms=600", "forward.r.kafka.linger.ms=0"));
    Map<String, String> flags = new HashMap<>(Map.of("data.dir", dir.resolve("data").toString(),
        "grpc.listen", "127.0.0.1:0", "http.listen", "127.0.0.1:0", "kafka.listen", "127.0.0.1:0",
        "retention.check.interval.ms", "50"));
    flags.putAll(more);
    broker = Broker.start(BrokerConfig.resolve(config, Map.of(), flags), ChronicleLog::open, clock);
    channel = ManagedChannelBuilder.forAddress("127.0.0.1", broker.port()).usePlaintext().build();
    wire = new Wire(channel);
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (broker != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      broker.close();
      broker = null;
    }
  }

  /**
   * Ten hourly segments of 5 records, with 2 hours of retention: at hour 10 the nine of hours 0 to 8
   * are due (appended 2 hours ago or more), not the last. The route has
   * found the topic before (it looks every 5 s).
   */
  void produceTenHours() throws InterruptedException {
    wire.admin.createTopic(CreateTopicRequest.newBuilder().setName("events").setPartitions(1)
        .putConfig("segment.roll", "1h").putConfig("retention.ms", String.valueOf(2 * HOUR)).build());
    RetentionIT.await("the route to find the topic", () -> !route().partitions().isEmpty());
    for (int h = 0; h < 10; h++) {
      wire.produce("events", 0, List.of(Wire.value("h" + h + "-0"), Wire.value("h" + h + "-1"),
          Wire.value("h" + h + "-2"), Wire.value("h" + h + "-3"), Wire.value("h" + h + "-4")));
      clock.advance(HOUR);
    }
  }

  ForwardRouteStatus route() {
    return broker.forwarding().route("r");
  }

  @Test
  void recordsRetentionDeletesBeforeTheyAreForwardedAreCounted() throws Exception {
    start(false, Map.of());
    produceTenHours();

    RetentionIT.await("the dropped records to be counted", () -> route().droppedRecords() == 45);
    assertThat(broker.retention().recordsDeleted()).isEqualTo(45);
    assertThat(broker.partition("events", 0).startOffset()).isEqualTo(45);
    ForwardRouteStatus r = route();
    assertThat(r.partitions()).containsExactly(new ForwardRouteStatus.Cursor("events", 0, 45, 50));
    assertThat(r.lagRecords()).isEqualTo(5);
    assertThat(r.forwardedRecords()).isZero();
    assertThat(r.errors()).isNotEmpty();
    assertThat(r.lastError()).isNotBlank();
  }

  @Test
  void aPausedRouteKeepsItsCursorAndItsPausePastTheGroupOffsetsRetentionAndARestart() throws Exception {
    Map<String, String> shortRetention = Map.of("group.offsets.retention.ms", "3000");
    start(false, shortRetention);
    wire.admin.createTopic(CreateTopicRequest.newBuilder().setName("events").setPartitions(1).build());
    RetentionIT.await("the route to find the topic", () -> !route().partitions().isEmpty());
    assertThat(broker.forwarding().pause("r").state()).isEqualTo(ForwardRouteStatus.State.PAUSED);

    for (int i = 0; i < 5; i++) { // 10 s of the broker's clock, over three times the offsets retention
      clock.advance(2_000);
      Thread.sleep(1_500); // the route commits its cursor again every second (a quarter of it, at least 1 s)
    }
    assertThat(broker.groups().find("__forward.r")).as("the cursor group").isNotNull();
    stop();
    start(false, shortRetention);
    RetentionIT.await("the route to read its cursor", () -> !route().partitions().isEmpty());
    assertThat(route().state()).isEqualTo(ForwardRouteStatus.State.PAUSED);
  }

  @Test
  void retentionWaitsForTheRouteWhileSpaceAllowsThenDeletesAndTheRouteCountsIt() throws Exception {
    start(true, Map.of());
    produceTenHours();
    RetentionIT.await("retention to hold segments", () -> broker.retention().segmentsHeld() > 0);
    Thread.sleep(300); // more passes: still nothing deleted
    assertThat(broker.retention().recordsDeleted()).isZero();
    assertThat(broker.partition("events", 0).startOffset()).isZero();
    assertThat(route().lagRecords()).isEqualTo(50);
    assertThat(route().lagSeconds()).isGreaterThan(0);
    assertThat(route().droppedRecords()).isZero();
    stop();

    // Free space under the produce threshold (a threshold above any disk's free space): the hold ends.
    start(true, Map.of("disk.free.min.bytes", String.valueOf(1L << 60)));
    RetentionIT.await("the dropped records to be counted", () -> route().droppedRecords() == 45);
    assertThat(broker.retention().recordsDeleted()).isEqualTo(45);
  }
}
