package io.brook.client.it;

import static io.brook.client.it.TestTopics.create;
import static io.brook.client.it.TestTopics.produceValues;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.GroupOffset;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.OffsetAndMetadata;
import io.brook.client.errors.InvalidRequestException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Commits carry metadata (Kafka's OffsetAndMetadata) that other consumers and the admin read back. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CommitMetadataIT {
  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  static BrookConsumer<String, String> consumer(String group) {
    return new BrookConsumer<>(ConsumerConfig.builder().broker(broker.address()).groupId(group)
        .enableAutoCommit(false).build(), Serdes.stringDeserializer(), Serdes.stringDeserializer());
  }

  @Test
  void metadataCommittedByOneConsumerIsReadByAnotherAndByTheAdmin() {
    create(broker.channel(), "meta", 2);
    produceValues(broker.channel(), "meta", 0, 5, "a");
    produceValues(broker.channel(), "meta", 1, 5, "b");
    TopicPartition p0 = new TopicPartition("meta", 0);
    TopicPartition p1 = new TopicPartition("meta", 1);
    try (BrookConsumer<String, String> writer = consumer("meta-group")) {
      writer.assign(List.of(p0, p1));
      writer.commitSync(Map.of(p0, new OffsetAndMetadata(3, "db-txn=42"), p1, new OffsetAndMetadata(1, "grüße ✓")));

      List<String> outcomes = new ArrayList<>();
      writer.commitAsync(Map.of(p1, new OffsetAndMetadata(2, "async")), (offsets, e) -> outcomes.add(offsets + " " + e));
      for (int i = 0; i < 100 && outcomes.isEmpty(); i++) {
        writer.poll(Duration.ofMillis(20));
      }
      assertThat(outcomes).containsExactly("{meta-1=OffsetAndMetadata[offset=2, metadata=async]} null");
    }

    try (BrookConsumer<String, String> reader = consumer("meta-group")) {
      assertThat(reader.committed(Set.of(p0, p1))).containsOnly(
          Map.entry(p0, new OffsetAndMetadata(3, "db-txn=42")), Map.entry(p1, new OffsetAndMetadata(2, "async")));
    }
    try (BrookAdmin admin = BrookAdmin.create(broker.address())) {
      Map<Integer, String> byPartition = admin.listGroupOffsets("meta-group").stream()
          .collect(Collectors.toMap(GroupOffset::partition, o -> o.offset() + " " + o.metadata()));
      assertThat(byPartition).containsOnly(Map.entry(0, "3 db-txn=42"), Map.entry(1, "2 async"));
    }

    // A commit without metadata (commitSync() of the positions) stores none, as in Kafka.
    try (BrookConsumer<String, String> c = consumer("meta-group")) {
      c.assign(List.of(p0));
      c.seek(p0, 4);
      c.commitSync();
      assertThat(c.committed(Set.of(p0))).containsExactly(Map.entry(p0, new OffsetAndMetadata(4, "")));
    }
  }

  @Test
  void metadataOverKafkasLimitOf4096BytesIsRefusedWhateverItsCharacterCount() {
    create(broker.channel(), "meta-limit", 1);
    produceValues(broker.channel(), "meta-limit", 0, 3, "v");
    TopicPartition tp = new TopicPartition("meta-limit", 0);
    try (BrookConsumer<String, String> c = consumer("meta-limit-group")) {
      c.assign(List.of(tp));
      c.commitSync(Map.of(tp, new OffsetAndMetadata(1, "x".repeat(4096))));
      c.commitSync(Map.of(tp, new OffsetAndMetadata(1, "é".repeat(2048)))); // 4096 bytes in UTF-8

      assertThatThrownBy(() -> c.commitSync(Map.of(tp, new OffsetAndMetadata(2, "x".repeat(4097)))))
          .isInstanceOf(InvalidRequestException.class).hasMessageContaining("4097 bytes");
      // 3000 characters, 6000 bytes: over the limit the .proto and API.md state in bytes.
      assertThatThrownBy(() -> c.commitSync(Map.of(tp, new OffsetAndMetadata(2, "é".repeat(3000)))))
          .isInstanceOf(InvalidRequestException.class).hasMessageContaining("6000 bytes");
      assertThat(c.committed(Set.of(tp))).containsExactly(Map.entry(tp, new OffsetAndMetadata(1, "é".repeat(2048))));
    }
  }

  @Test
  void anOffsetAndMetadataIsANonNegativeOffsetWithTextNeverNull() {
    assertThat(new OffsetAndMetadata(7)).isEqualTo(new OffsetAndMetadata(7, ""));
    assertThat(new OffsetAndMetadata(7, null).metadata()).isEmpty();
    assertThatThrownBy(() -> new OffsetAndMetadata(-1, "x")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
  }
}
