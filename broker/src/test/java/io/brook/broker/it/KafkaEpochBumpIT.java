package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.KafkaBatch;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.PartitionRecords;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-360 on the real broker: kafka-clients' idempotent producer whose sent batch expires with its
 * outcome unknown (delivery.timeout.ms passes while every answer to it is lost) bumps its epoch
 * itself, without InitProducerId, and goes on at epoch + 1 from sequence 0. Brook must take that, as
 * Kafka does: the producer continues, nothing acknowledged is lost, nothing is written twice.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KafkaEpochBumpIT {
  @TempDir Path dir;

  @Test
  void aProducerThatBumpsItsOwnEpochAfterAnExpiredBatchGoesOnWithoutLossOrDuplicate() throws Exception {
    int kafkaPort = BrokerStartIT.freePort();
    AtomicBoolean blackout = new AtomicBoolean();
    try (ProduceAnswerProxy proxy = new ProduceAnswerProxy(kafkaPort, blackout::get);
        BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set", "kafka.listen=127.0.0.1:" + kafkaPort,
            "--set", "kafka.advertised=127.0.0.1:" + proxy.port())) {
      Wire wire = new Wire(broker.channel());
      wire.create("bumped", 1);
      Properties p = new Properties();
      p.put("bootstrap.servers", "127.0.0.1:" + proxy.port());
      p.put("acks", "all");
      p.put("enable.idempotence", true);
      p.put("linger.ms", 0);
      p.put("retry.backoff.ms", 50);
      p.put("request.timeout.ms", 1_000);
      p.put("delivery.timeout.ms", 3_000); // short, so the batch whose answers are lost expires soon
      List<RecordMetadata> acked = new ArrayList<>();
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
          new ByteArraySerializer())) {
        acked.add(producer.send(record("before")).get(30, TimeUnit.SECONDS));

        blackout.set(true); // every answer to "unknown" is lost: written at once, its outcome never known
        Future<RecordMetadata> unknown = producer.send(record("unknown"));
        assertThatThrownBy(() -> unknown.get(60, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .cause().isInstanceOf(TimeoutException.class);
        blackout.set(false);

        List<Future<RecordMetadata>> after = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          after.add(producer.send(record("after-" + i)));
        }
        for (Future<RecordMetadata> f : after) {
          acked.add(f.get(60, TimeUnit.SECONDS)); // fails (times out) if the broker refuses the bumped epoch
        }
      }
      assertThat(proxy.dropped.get()).as("answers to the expired batch were lost").isPositive();

      List<String> expected = new ArrayList<>(List.of("before", "unknown"));
      IntStream.range(0, 10).forEach(i -> expected.add("after-" + i));
      assertThat(wire.readAll("bumped", 0)).extracting(r -> r.getValue().toStringUtf8())
          .as("each record once, the expired one too (its first attempt was written)").containsExactlyElementsOf(expected);
      assertThat(acked).extracting(RecordMetadata::offset)
          .containsExactlyElementsOf(LongStream.concat(LongStream.of(0), LongStream.range(2, 12)).boxed().toList());

      // The stored headers show what happened: the records after the expiry came under the next epoch from sequence 0.
      List<byte[]> batches = storedBatches(wire);
      byte[] first = batches.get(0);
      byte[] bumped = batches.stream().filter(b -> BatchFormat.baseOffset(b, 0) == 2).findFirst().orElseThrow();
      assertThat(KafkaBatch.producerId(bumped, BatchFormat.V2_PREFIX_SIZE))
          .isEqualTo(KafkaBatch.producerId(first, BatchFormat.V2_PREFIX_SIZE));
      assertThat(KafkaBatch.producerEpoch(bumped, BatchFormat.V2_PREFIX_SIZE))
          .isEqualTo((short) (KafkaBatch.producerEpoch(first, BatchFormat.V2_PREFIX_SIZE) + 1));
      assertThat(KafkaBatch.baseSequence(bumped, BatchFormat.V2_PREFIX_SIZE)).isZero();
    }
  }

  private static ProducerRecord<byte[], byte[]> record(String value) {
    return new ProducerRecord<>("bumped", 0, null, value.getBytes(StandardCharsets.UTF_8));
  }

  /** The partition's batches as stored (version 2: Brook's prefix, then Kafka's batch). */
  private static List<byte[]> storedBatches(Wire wire) {
    PartitionRecords pr = wire.fetch.fetch(FetchRequest.newBuilder().setRawBatches(true).setMaxBatchVersion(2)
        .setMaxRecords(1000).setMaxBytes(1 << 20)
        .addPartitions(FetchPartition.newBuilder().setTopic("bumped").setPartition(0)).build()).getPartitions(0);
    return pr.getBatchesList().stream().map(ByteString::toByteArray).toList();
  }
}
