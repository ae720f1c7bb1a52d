package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.brook.client.Header;
import io.brook.client.Serdes;
import io.brook.client.ack.AckConsumer;
import io.brook.client.ack.AckConsumerConfig;
import io.brook.client.ack.AckRecord;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.NewGroup;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.CompressionType;
import io.brook.client.producer.ProducerConfig;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.FetchResponse;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.Position;
import io.brook.protocol.v1.ReceiveResponse;
import io.brook.protocol.v1.Record;
import io.brook.protocol.v1.TailPartition;
import io.brook.protocol.v1.TailRequest;
import io.brook.protocol.v1.TailResponse;
import io.grpc.Context;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Compressed batches on every read path of the real broker process: batches written compressed by
 * kafka-clients (each codec, over the Kafka listener) and by Brook's Java producer (its compression
 * option, over gRPC) read back through the record Fetch, Tail, ack-mode Receive (the Java client's
 * AckConsumer), the Java consumer (raw fetches of version 2, its own decoder) and raw fetches in
 * both versions decoded by the protocol's BatchReader: the same offsets, keys, values, headers and
 * timestamps everywhere. And the answer cap counts what the client receives: a small compressed
 * batch of large records still comes in answers within the cap.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class CompressedReadsIT {
  static final long T = 1_700_000_000_000L;
  @TempDir static Path dir;
  static BrokerProcess broker;
  static Wire wire;
  static BrookAdmin admin;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    wire = new Wire(broker.channel());
    admin = BrookAdmin.create(broker.address());
  }

  @AfterAll
  static void stop() throws Exception {
    admin.close();
    broker.close();
  }

  static KafkaProducer<byte[], byte[]> kafkaProducer(String codec, Map<String, Object> extra) {
    Properties p = new Properties();
    p.put("bootstrap.servers", broker.kafkaAddress());
    p.put("acks", "all");
    p.put("linger.ms", 200); // the records of one test go in one batch
    p.put("compression.type", codec);
    p.putAll(extra);
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @EnumSource(CompressionType.class)
  void batchesCompressedByKafkaClientsAndByBrooksProducerReadTheSameOnEveryPath(CompressionType codec)
      throws Exception {
    String topic = "cr-" + codec.name().toLowerCase(Locale.ROOT);
    wire.create(topic, 1);
    try (KafkaProducer<byte[], byte[]> producer = kafkaProducer(codec.name().toLowerCase(Locale.ROOT), Map.of())) {
      producer.send(new ProducerRecord<>(topic, 0, T, utf8("k0"), utf8("kafka value zero, zero, zero"),
          List.of(new RecordHeader("h", utf8("a")), new RecordHeader("h", utf8("")))));
      producer.send(new ProducerRecord<>(topic, 0, T + 7, null, utf8("kafka value one, one, one")));
      producer.send(new ProducerRecord<>(topic, 0, T - 3, new byte[0], new byte[0],
          List.of(new RecordHeader("only", utf8("header")))));
      producer.flush();
    }
    try (BrookProducer<byte[], byte[]> producer = new BrookProducer<>(ProducerConfig.builder()
        .broker(broker.address()).compression(codec).linger(Duration.ofMillis(200)).build(),
        Serdes.bytesSerializer(), Serdes.bytesSerializer())) {
      producer.send(new io.brook.client.producer.ProducerRecord<>(topic, 0, T + 100, utf8("b0"),
          utf8("brook value zero, zero"), List.of(Header.of("x", "1"))));
      producer.send(new io.brook.client.producer.ProducerRecord<>(topic, 0, T + 101, null,
          utf8("brook value one, one"), List.of()));
      producer.send(new io.brook.client.producer.ProducerRecord<>(topic, 0, T + 99, new byte[0],
          utf8("brook value two, two"), List.of(Header.of("y", ""), Header.of("y", "2"))));
      producer.flush();
    }
    List<String> expected = List.of(
        "0 " + T + " k0 kafka value zero, zero, zero [h=a, h=]",
        "1 " + (T + 7) + " null kafka value one, one, one []",
        "2 " + (T - 3) + "   [only=header]",
        "3 " + (T + 100) + " b0 brook value zero, zero [x=1]",
        "4 " + (T + 101) + " null brook value one, one []",
        "5 " + (T + 99) + "  brook value two, two [y=, y=2]");

    assertThat(grpcRecords(wire.readAll(topic, 0))).as("record Fetch").isEqualTo(expected);
    assertThat(grpcRecords(tail(topic, 6, 1 << 20))).as("Tail").isEqualTo(expected);
    assertThat(raw(topic, 2)).as("raw fetch, version 2 (as stored)").isEqualTo(expected);
    assertThat(raw(topic, null)).as("raw fetch, version 1 (a client of the previous release)").isEqualTo(expected);
    assertThat(javaConsumer(topic, 6)).as("the Java consumer (raw version 2, its decoder)").isEqualTo(expected);
    assertThat(ackConsumer(topic, 6)).as("ack-mode Receive (the Java AckConsumer)").isEqualTo(expected);
  }

  /**
   * Twelve records of 512 KiB in one zstd batch of a few KiB: every answer of every path that carries
   * more than one record stays within the broker's 3 MiB answer cap, so a client on gRPC's default
   * 4 MiB limit reads them all. A cap counting the stored (compressed) bytes would send all 6 MiB at once.
   */
  @Test
  void answersOfLargeRecordsFromASmallCompressedBatchStayWithinTheCap() throws Exception {
    String topic = "cr-cap";
    wire.create(topic, 1);
    int n = 12;
    int size = 512 << 10;
    try (KafkaProducer<byte[], byte[]> producer = kafkaProducer("zstd", Map.of("batch.size", 16 << 20,
        "max.request.size", 1 << 20, "buffer.memory", 64L << 20))) {
      for (int i = 0; i < n; i++) {
        byte[] v = new byte[size];
        Arrays.fill(v, (byte) ('a' + i));
        producer.send(new ProducerRecord<>(topic, 0, T + i, null, v));
      }
      producer.flush();
    }
    PartitionRecords stored = rawFetch(topic, 0, 2, 64 << 20);
    assertThat(stored.getBatchesCount()).as("one batch").isEqualTo(1);
    assertThat(stored.getBatches(0).size()).as("stored compressed").isLessThan(size);

    int cap = 3 << 20;
    // record Fetch, asking for far more than the cap
    List<Long> offsets = new ArrayList<>();
    long next = 0;
    while (next < n) {
      FetchResponse r = wire.fetch.fetch(FetchRequest.newBuilder().setMaxRecords(1000).setMaxBytes(64 << 20)
          .addPartitions(FetchPartition.newBuilder().setTopic(topic).setPartition(0).setOffset(next)).build());
      PartitionRecords p = r.getPartitions(0);
      assertThat(p.getRecordsCount()).isPositive();
      assertThat(r.getSerializedSize()).as("a Fetch answer of " + p.getRecordsCount() + " records").isLessThanOrEqualTo(cap);
      p.getRecordsList().forEach(rec -> {
        offsets.add(rec.getOffset());
        assertThat(rec.getValue().size()).isEqualTo(size);
        assertThat(rec.getValue().byteAt(0)).isEqualTo((byte) ('a' + rec.getOffset()));
      });
      next = p.getNextOffset();
    }
    assertThat(offsets).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L);

    // Tail: every message within the cap
    List<Record> tailed = new ArrayList<>();
    Context.CancellableContext ctx = Context.current().withCancellation();
    try {
      ctx.run(() -> {
        Iterator<TailResponse> it = FetchServiceGrpc.newBlockingStub(broker.channel())
            .withDeadlineAfter(60, TimeUnit.SECONDS).tail(TailRequest.newBuilder().setMaxRecords(1000)
                .setMaxBytes(64 << 20).addPartitions(TailPartition.newBuilder().setTopic(topic).setPartition(0)
                    .setStart(Position.newBuilder().setOffset(0))).build());
        while (tailed.size() < n) {
          TailResponse m = it.next();
          assertThat(m.getSerializedSize()).as("a Tail message of " + m.getRecords().getRecordsCount() + " records")
              .isLessThanOrEqualTo(cap);
          tailed.addAll(m.getRecords().getRecordsList());
        }
      });
    } finally {
      ctx.cancel(null);
    }
    assertThat(tailed).extracting(Record::getOffset).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L);

    // Receive: every message within the cap
    admin.createGroup(NewGroup.ackMode("cap-workers").withConfig("auto.offset.reset", "earliest"));
    try (AckStream member = new AckStream(broker.channel(), "cap-workers", "w1", 1000, topic)) {
      List<AckStream.Got> got = member.take(n, 60_000);
      assertThat(got).hasSize(n);
      for (ReceiveResponse m : member.responses.messages()) {
        assertThat(m.getSerializedSize()).as("a Receive message").isLessThanOrEqualTo(cap);
      }
    }

    // Raw fetch in version 1 (a client of the previous release): the batch converted is uncompressed,
    // 6 MiB, so it is measured as the client receives it and comes as records (which such a client reads)
    List<Long> rawOffsets = new ArrayList<>();
    next = 0;
    while (next < n) {
      FetchResponse r = wire.fetch.fetch(FetchRequest.newBuilder().setRawBatches(true).setMaxRecords(1000)
          .setMaxBytes(64 << 20).addPartitions(FetchPartition.newBuilder().setTopic(topic).setPartition(0)
              .setOffset(next)).build());
      PartitionRecords p = r.getPartitions(0);
      assertThat(p.getErrorMessage()).isEmpty();
      assertThat(r.getSerializedSize()).as("a raw version 1 answer").isLessThanOrEqualTo(cap);
      p.getRecordsList().forEach(rec -> rawOffsets.add(rec.getOffset()));
      decode(p, next).forEach(line -> rawOffsets.add(Long.parseLong(line.split(" ")[0])));
      assertThat(p.getNextOffset()).as("progress").isGreaterThan(next);
      next = p.getNextOffset();
    }
    assertThat(rawOffsets).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L);
  }

  static PartitionRecords rawFetch(String topic, long offset, Integer maxBatchVersion, int maxBytes) {
    FetchRequest.Builder b = FetchRequest.newBuilder().setRawBatches(true).setMaxRecords(1000).setMaxBytes(maxBytes)
        .addPartitions(FetchPartition.newBuilder().setTopic(topic).setPartition(0).setOffset(offset));
    if (maxBatchVersion != null) {
      b.setMaxBatchVersion(maxBatchVersion);
    }
    PartitionRecords p = wire.fetch.fetch(b.build()).getPartitions(0);
    assertThat(p.getErrorMessage()).isEmpty();
    return p;
  }

  /** A raw fetch of the whole partition in one batch version, decoded by BatchReader. */
  static List<String> raw(String topic, Integer maxBatchVersion) {
    return decode(rawFetch(topic, 0, maxBatchVersion, 1 << 20), 0);
  }

  static List<String> decode(PartitionRecords p, long from) {
    BatchReader reader = new BatchReader();
    List<String> out = new ArrayList<>();
    for (ByteString batch : p.getBatchesList()) {
      byte[] b = batch.toByteArray();
      reader.wrap(b, 0, b.length);
      while (reader.next()) {
        if (reader.offset() < from) {
          continue;
        }
        List<String> headers = new ArrayList<>();
        for (int i = 0; i < reader.headerCount(); i++) {
          headers.add(new String(reader.copyHeaderName(i), StandardCharsets.UTF_8) + "="
              + new String(reader.copyHeaderValue(i), StandardCharsets.UTF_8));
        }
        out.add(line(reader.offset(), reader.timestamp(), reader.hasKey() ? reader.copyKey() : null,
            reader.copyValue(), headers));
      }
    }
    return out;
  }

  static List<Record> tail(String topic, int count, int maxBytes) {
    List<Record> out = new ArrayList<>();
    Context.CancellableContext ctx = Context.current().withCancellation();
    try {
      ctx.run(() -> {
        Iterator<TailResponse> it = FetchServiceGrpc.newBlockingStub(broker.channel())
            .withDeadlineAfter(60, TimeUnit.SECONDS).tail(TailRequest.newBuilder().setMaxBytes(maxBytes)
                .addPartitions(TailPartition.newBuilder().setTopic(topic).setPartition(0)
                    .setStart(Position.newBuilder().setOffset(0))).build());
        while (out.size() < count) {
          out.addAll(it.next().getRecords().getRecordsList());
        }
      });
    } finally {
      ctx.cancel(null); // a tail follows the partition for ever: end it
    }
    return out;
  }

  static List<String> javaConsumer(String topic, int count) {
    List<String> out = new ArrayList<>();
    try (BrookConsumer<byte[], byte[]> c = new BrookConsumer<>(ConsumerConfig.builder().broker(broker.address())
        .build(), Serdes.bytesDeserializer(), Serdes.bytesDeserializer())) {
      io.brook.client.TopicPartition tp = new io.brook.client.TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      for (int i = 0; i < 100 && out.size() < count; i++) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          out.add(line(r));
        }
      }
    }
    return out;
  }

  static List<String> ackConsumer(String topic, int count) {
    String group = topic + "-workers";
    admin.createGroup(NewGroup.ackMode(group).withConfig("auto.offset.reset", "earliest"));
    List<String> out = new ArrayList<>();
    try (AckConsumer<byte[], byte[]> c = AckConsumer.ofBytes(AckConsumerConfig.builder().broker(broker.address())
        .group(group).topics(topic).build())) {
      for (int i = 0; i < 100 && out.size() < count; i++) {
        for (AckRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          out.add(line(r.record()));
          c.ack(r);
        }
      }
      c.flush();
    }
    return out;
  }

  static List<String> grpcRecords(List<Record> records) {
    return records.stream().map(r -> line(r.getOffset(), r.getTimestampMs(),
        r.hasKey() ? r.getKey().toByteArray() : null, r.getValue().toByteArray(),
        r.getHeadersList().stream().map(h -> h.getKey() + "=" + h.getValue().toStringUtf8()).toList())).toList();
  }

  static String line(ConsumerRecord<byte[], byte[]> r) {
    return line(r.offset(), r.timestampMs(), r.key(), r.value(),
        r.headers().stream().map(h -> h.key() + "=" + new String(h.value(), StandardCharsets.UTF_8)).toList());
  }

  /** One record as the tests compare it: offset, timestamp, key (null when absent), value, headers. */
  static String line(long offset, long timestamp, byte[] key, byte[] value, List<String> headers) {
    return offset + " " + timestamp + " " + (key == null ? "null" : new String(key, StandardCharsets.UTF_8)) + " "
        + new String(value == null ? new byte[0] : value, StandardCharsets.UTF_8) + " " + headers;
  }
}
