package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import io.brook.broker.storage.KafkaBatches;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A slow request holds up no other connection: the broker runs its Kafka listener on one network
 * thread (io.netty.eventLoopThreads=1), so every connection shares it, and one connection sends a
 * produce of {@value #BATCHES} batches, which takes the broker a while to validate and append. Once
 * its appends have begun (the partition's end offset, read over HTTP, has moved) another connection
 * asks for ApiVersions and Metadata: they are answered while the produce is still being appended
 * (the end offset has not reached its end), where they used to wait for the whole produce. The
 * produce's batches are appended in request order, and so are the requests a connection pipelines.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaConnectionWorkIT {
  static final int BATCHES = 200_000;
  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), Map.of(), List.of("-Xmx1g", "-Dio.netty.eventLoopThreads=1"),
        "--set", "max.request.bytes=" + (64 << 20));
    RawKafka.createTopic(broker.kafkaPort(), "t", 1);
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  /** Partition t-0's end offset, from /metrics (the HTTP server has network threads of its own). */
  private static long endOffset() throws Exception {
    return endOffset("t");
  }

  private static long endOffset(String topic) throws Exception {
    return (long) Scrape.get(broker.httpPort(), "/metrics").lines()
        .filter(l -> l.startsWith("brook_partition_end_offset{") && l.contains("topic=\"" + topic + "\""))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).findFirst().orElse(-1);
  }

  /**
   * A producer with acks=0 counts a record sent once written and may close at once (kafka-clients'
   * flush then close): what it sent lands, also the requests still queued when the broker sees the close.
   */
  @Test
  void acksZeroProducesSentRightBeforeTheClientClosesAllLand() throws Exception {
    RawKafka.createTopic(broker.kafkaPort(), "fire", 1);
    int frames = 64;
    int perFrame = 2_000;
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      for (int f = 0; f < frames; f++) {
        List<byte[]> batches = new ArrayList<>(perFrame);
        for (int i = 0; i < perFrame; i++) {
          batches.add(KafkaBatches.batch(Compression.NONE, KafkaBatches.rec(1000L + i, null, "f" + f + "-" + i)));
        }
        wire.write(RawKafka.produce(f, "fire", batches, (short) 0));
      }
    } // closed right after the last write, as the client does
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (endOffset("fire") < (long) frames * perFrame && System.nanoTime() < deadline) {
      Thread.sleep(100);
    }
    Thread.sleep(500); // nothing more comes
    assertThat(endOffset("fire")).isEqualTo((long) frames * perFrame);
  }

  @Test
  void anotherConnectionIsAnsweredWhileAHeavyProduceIsAppended() throws Exception {
    List<byte[]> batches = new ArrayList<>(BATCHES);
    for (int i = 0; i < BATCHES; i++) {
      batches.add(KafkaBatches.batch(Compression.NONE, KafkaBatches.rec(1000L + i, null, "v" + i)));
    }
    byte[] heavy = RawKafka.produce(1, "t", batches);
    batches = null;
    try (KafkaWire other = new KafkaWire(broker.kafkaPort()); KafkaWire slow = new KafkaWire(broker.kafkaPort())) {
      other.write(KafkaWire.apiVersions((short) 3, 0));
      assertThat(other.readApiVersions((short) 3).correlationId()).isZero();
      CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
        try {
          slow.write(heavy);
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (endOffset() <= 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(endOffset()).as("the heavy produce is being appended").isPositive();

      other.write(KafkaWire.apiVersions((short) 3, 1));
      assertThat(other.readApiVersions((short) 3).correlationId()).isEqualTo(1);
      MetadataRequestData metadata = new MetadataRequestData().setAllowAutoTopicCreation(false);
      metadata.setTopics(List.of(new MetadataRequestData.MetadataRequestTopic().setName("t")));
      other.write(KafkaWire.frame(ApiKeys.METADATA, (short) 12, 2, metadata));
      MetadataResponseData m = (MetadataResponseData) RawKafka.read(other, ApiKeys.METADATA, (short) 12, 2);
      assertThat(m.topics().find("t").errorCode()).isEqualTo(Errors.NONE.code());
      assertThat(endOffset()).as("the other connection was answered while the heavy produce was still appended")
          .isLessThan(BATCHES);

      sent.get(60, TimeUnit.SECONDS);
      ProduceResponseData answer = (ProduceResponseData) RawKafka.read(slow, ApiKeys.PRODUCE, RawKafka.PRODUCE_V, 1);
      List<PartitionProduceResponse> parts = answer.responses().iterator().next().partitionResponses();
      assertThat(parts).hasSize(BATCHES);
      for (int i = 0; i < BATCHES; i++) {
        assertThat(parts.get(i).errorCode()).isEqualTo(Errors.NONE.code());
        if (parts.get(i).baseOffset() != i) {
          throw new AssertionError("batch " + i + " appended at offset " + parts.get(i).baseOffset());
        }
      }
    }
    assertThat(endOffset()).isEqualTo(BATCHES);
  }

  /**
   * An idempotent producer's requests, pipelined on one connection, reach the log in request order
   * though they run on the worker pool: sequence 0, 1, 2 ... each appended next (out of order, the
   * broker would answer OUT_OF_ORDER_SEQUENCE_NUMBER).
   */
  @Test
  void pipelinedIdempotentProducesAreAppendedInRequestOrder() throws Exception {
    int requests = 2_000;
    RawKafka.createTopic(broker.kafkaPort(), "seq", 1);
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      wire.write(KafkaWire.frame(ApiKeys.INIT_PRODUCER_ID, (short) 4, 0,
          new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(60_000)
              .setProducerId(-1).setProducerEpoch((short) -1)));
      InitProducerIdResponseData id = (InitProducerIdResponseData) RawKafka.read(wire, ApiKeys.INIT_PRODUCER_ID,
          (short) 4, 0);
      assertThat(id.errorCode()).isEqualTo(Errors.NONE.code());
      CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> {
        try {
          java.io.OutputStream out = new java.io.BufferedOutputStream(wire.socket.getOutputStream(), 1 << 16);
          for (int i = 0; i < requests; i++) {
            out.write(RawKafka.produce(i + 1, "seq", List.of(KafkaBatches.idempotent(Compression.NONE,
                id.producerId(), id.producerEpoch(), i, KafkaBatches.rec(1000L + i, null, "v" + i)))));
          }
          out.flush();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      for (int i = 0; i < requests; i++) {
        ProduceResponseData answer = (ProduceResponseData) RawKafka.read(wire, ApiKeys.PRODUCE, RawKafka.PRODUCE_V,
            i + 1);
        PartitionProduceResponse p = answer.responses().iterator().next().partitionResponses().get(0);
        if (p.errorCode() != Errors.NONE.code() || p.baseOffset() != i) {
          throw new AssertionError("request " + i + ": error " + Errors.forCode(p.errorCode()) + " ("
              + p.errorMessage() + "), offset " + p.baseOffset());
        }
      }
      sent.get(60, TimeUnit.SECONDS);
    }
  }
}
