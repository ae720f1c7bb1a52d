package io.brook.client.it;

import static io.brook.client.it.TestTopics.create;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.Serdes;
import io.brook.client.errors.UnknownPartitionException;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.Partitioner;
import io.brook.client.producer.ProducerConfig;
import io.brook.client.producer.ProducerRecord;
import io.brook.client.producer.RecordMetadata;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A partitioner of the application's chooses the partition of records sent without one. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PartitionerIT {
  @TempDir static Path dir;
  static BrokerProcess broker;
  static TestData wire;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    wire = new TestData(broker.channel());
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  static BrookProducer<String, String> producer(Partitioner partitioner) {
    return new BrookProducer<>(ProducerConfig.builder().broker(broker.address()).partitioner(partitioner).build(),
        Serdes.stringSerializer(), Serdes.stringSerializer());
  }

  @Test
  void everyRecordGoesWhereThePartitionerSaysKeyedOrNotAndAnExplicitPartitionStillWins() throws Exception {
    create(broker.channel(), "chosen", 3);
    List<String> calls = Collections.synchronizedList(new ArrayList<>());
    Partitioner toTwo = (topic, key, value, partitions) -> {
      calls.add(topic + " " + (key == null ? null : new String(key, StandardCharsets.UTF_8)) + " "
          + new String(value, StandardCharsets.UTF_8) + " " + partitions);
      return 2;
    };
    List<CompletableFuture<RecordMetadata>> sent = new ArrayList<>();
    try (BrookProducer<String, String> producer = producer(toTwo)) {
      for (int i = 0; i < 20; i++) {
        sent.add(producer.send(new ProducerRecord<>("chosen", "key-" + i, "keyed-" + i)));
        sent.add(producer.send(new ProducerRecord<>("chosen", "keyless-" + i)));
      }
      RecordMetadata explicit = producer.sendSync(new ProducerRecord<>("chosen", 0, "k", "explicit"));
      assertThat(explicit.partition()).isZero();
      producer.flush();
    }
    for (CompletableFuture<RecordMetadata> f : sent) {
      assertThat(f.get().partition()).isEqualTo(2);
    }
    assertThat(wire.readAll("chosen", 2)).hasSize(40);
    assertThat(wire.readAll("chosen", 1)).isEmpty();
    assertThat(wire.readAll("chosen", 0)).hasSize(1);
    assertThat(calls).hasSize(40).contains("chosen key-0 keyed-0 3", "chosen null keyless-0 3");
  }

  @Test
  void aPartitionOutsideTheTopicFailsTheRecordWithUnknownPartition() {
    create(broker.channel(), "outside", 2);
    try (BrookProducer<String, String> producer = producer((topic, key, value, partitions) -> partitions)) {
      CompletableFuture<RecordMetadata> f = producer.send(new ProducerRecord<>("outside", "k", "v"));
      assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(UnknownPartitionException.class)
          .hasMessageContaining("the partitioner chose partition 2 of topic outside, which has 2");
    }
    assertThat(wire.readAll("outside", 0)).isEmpty();
    assertThat(wire.readAll("outside", 1)).isEmpty();
  }

  @Test
  void theDefaultKeyPartitionIsAtHandForAPartitionerThatKeepsIt() throws Exception {
    create(broker.channel(), "kept", 4);
    Partitioner keyedAsUsualKeylessToZero = (topic, key, value, partitions) ->
        key == null ? 0 : Partitioner.partitionForKey(key, partitions);
    try (BrookProducer<String, String> producer = producer(keyedAsUsualKeylessToZero);
        BrookProducer<String, String> usual = producer(null)) {
      for (int i = 0; i < 10; i++) {
        assertThat(producer.sendSync(new ProducerRecord<>("kept", "key-" + i, "v")).partition())
            .isEqualTo(usual.sendSync(new ProducerRecord<>("kept", "key-" + i, "v")).partition());
        assertThat(producer.sendSync(new ProducerRecord<>("kept", "no key")).partition()).isZero();
      }
    }
  }
}
