package io.brook.perf.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** The forward check's verdicts: a faithful copy passes, and each kind of fault fails its own check. */
class ForwardVerifierTest {
  private static final String SRC = "fc-orders";
  private static final int PARTS = 2;
  private static final int N = 40;

  /** Brook's source: record seq at partition seq % 2, offset seq / 2. */
  private static List<ConsumerRecord<byte[], byte[]>> source() {
    List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
    for (int seq = 0; seq < N; seq++) {
      ProducerRecord<byte[], byte[]> p = ForwardKit.record(SRC, PARTS, seq, 1_000_000);
      out.add(new ConsumerRecord<>(SRC, p.partition(), seq / PARTS, p.timestamp(), TimestampType.CREATE_TIME,
          -1, -1, p.key(), p.value(), p.headers(), Optional.empty()));
    }
    return out;
  }

  /** What a faithful forwarder writes for a source record, at target offset {@code offset}. */
  private static ConsumerRecord<byte[], byte[]> copy(ConsumerRecord<byte[], byte[]> r, long offset) {
    RecordHeaders h = new RecordHeaders(r.headers().toArray());
    h.add(ForwardVerifier.ORIGIN_TOPIC, r.topic().getBytes(StandardCharsets.UTF_8));
    h.add(ForwardVerifier.ORIGIN_PARTITION, Integer.toString(r.partition()).getBytes(StandardCharsets.UTF_8));
    h.add(ForwardVerifier.ORIGIN_OFFSET, Long.toString(r.offset()).getBytes(StandardCharsets.UTF_8));
    h.add(ForwardVerifier.ORIGIN_CLUSTER, "cluster-1".getBytes(StandardCharsets.UTF_8));
    return new ConsumerRecord<>("fc-orders-copy", r.partition(), offset, r.timestamp(), TimestampType.CREATE_TIME,
        -1, -1, r.key(), r.value(), h, Optional.empty());
  }

  /** The failed checks' names after the target, per partition in this order, is verified. */
  private static List<String> failures(List<ConsumerRecord<byte[], byte[]>> target) {
    ForwardVerifier v = new ForwardVerifier(SRC, PARTS);
    source().forEach(v::source);
    long[] next = new long[PARTS];
    for (ConsumerRecord<byte[], byte[]> r : target) {
      v.target(new ConsumerRecord<>(r.topic(), r.partition(), next[r.partition()]++, r.timestamp(),
          TimestampType.CREATE_TIME, -1, -1, r.key(), r.value(), r.headers(), Optional.empty()));
    }
    return v.verdicts(N).stream().filter(c -> !c.ok()).map(ForwardVerifier.Check::what).collect(Collectors.toList());
  }

  private static List<ConsumerRecord<byte[], byte[]>> faithful() {
    return source().stream().map(r -> copy(r, 0)).collect(Collectors.toCollection(ArrayList::new));
  }

  private static List<ConsumerRecord<byte[], byte[]>> with(int index, UnaryOperator<ConsumerRecord<byte[], byte[]>> f) {
    List<ConsumerRecord<byte[], byte[]>> t = faithful();
    t.set(index, f.apply(t.get(index)));
    return t;
  }

  @Test
  void aFaithfulCopyPasses() {
    assertThat(failures(faithful())).isEmpty();
  }

  @Test
  void repeatsOfOriginsAlreadyShownPass() {
    List<ConsumerRecord<byte[], byte[]>> t = faithful();
    // a retry after a crash: partition 0's origins 3..5 again after 0..7, then on
    List<ConsumerRecord<byte[], byte[]>> again = new ArrayList<>(t.subList(0, 16));
    for (int seq = 6; seq <= 10; seq += 2) {
      again.add(t.get(seq));
    }
    again.addAll(t.subList(16, t.size()));
    assertThat(failures(again)).isEmpty();
  }

  @Test
  void aMissingRecordFails() {
    List<ConsumerRecord<byte[], byte[]>> t = faithful();
    t.remove(7);
    assertThat(failures(t)).singleElement().asString().startsWith("every Brook record");
  }

  @Test
  void recordsOutOfOrderFail() {
    List<ConsumerRecord<byte[], byte[]>> t = faithful();
    var a = t.get(4);
    t.set(4, t.get(6));
    t.set(6, a);
    assertThat(failures(t)).singleElement().asString().startsWith("per partition, first copies");
  }

  @Test
  void aChangedValueHeaderKeyOrTimestampFails() {
    List<UnaryOperator<ConsumerRecord<byte[], byte[]>>> changes = List.of(
        r -> new ConsumerRecord<>(r.topic(), r.partition(), 0, r.timestamp(), TimestampType.CREATE_TIME, -1, -1,
            r.key(), "other".getBytes(StandardCharsets.UTF_8), r.headers(), Optional.empty()),
        r -> new ConsumerRecord<>(r.topic(), r.partition(), 0, r.timestamp() + 1, TimestampType.CREATE_TIME, -1, -1,
            r.key(), r.value(), r.headers(), Optional.empty()),
        r -> new ConsumerRecord<>(r.topic(), r.partition(), 0, r.timestamp(), TimestampType.CREATE_TIME, -1, -1,
            new byte[0], r.value(), r.headers(), Optional.empty()), // record 0's key is null: empty is not null
        r -> {
          RecordHeaders h = new RecordHeaders(r.headers().toArray());
          h.remove("empty");
          return new ConsumerRecord<>(r.topic(), r.partition(), 0, r.timestamp(), TimestampType.CREATE_TIME, -1, -1,
              r.key(), r.value(), h, Optional.empty());
        });
    for (var change : changes) {
      assertThat(failures(with(0, change))).singleElement().asString().startsWith("keys, values, headers");
    }
  }

  @Test
  void aRecordWithoutOriginOrWithAnUnknownOneFails() {
    assertThat(failures(with(3, r -> {
      RecordHeaders h = new RecordHeaders(r.headers().toArray());
      h.remove(ForwardVerifier.ORIGIN_OFFSET);
      return new ConsumerRecord<>(r.topic(), r.partition(), 0, r.timestamp(), TimestampType.CREATE_TIME, -1, -1,
          r.key(), r.value(), h, Optional.empty());
    }))).contains("no Kafka record without a Brook origin; every repeat repeats an origin already shown");
    // a duplicate made by the forwarder under a new origin (offset past Brook's end): a phantom
    List<ConsumerRecord<byte[], byte[]>> t = faithful();
    var r = t.get(1);
    RecordHeaders h = new RecordHeaders(r.headers().toArray());
    h.remove(ForwardVerifier.ORIGIN_OFFSET);
    h.add(ForwardVerifier.ORIGIN_OFFSET, "999".getBytes(StandardCharsets.UTF_8));
    t.add(new ConsumerRecord<>(r.topic(), r.partition(), 0, r.timestamp(), TimestampType.CREATE_TIME, -1, -1, r.key(),
        r.value(), h, Optional.empty()));
    assertThat(failures(t)).containsExactly(
        "no Kafka record without a Brook origin; every repeat repeats an origin already shown");
  }

  @Test
  void aRecordInAnotherPartitionFails() {
    assertThat(failures(with(2, r -> new ConsumerRecord<>(r.topic(), 1, 0, r.timestamp(), TimestampType.CREATE_TIME,
        -1, -1, r.key(), r.value(), r.headers(), Optional.empty())))).contains("each in the partition of its origin");
  }

  @Test
  void aRecordLostOnBrookFails() {
    ForwardVerifier v = new ForwardVerifier(SRC, PARTS);
    source().stream().filter(r -> r.offset() != 5).forEach(v::source);
    assertThat(v.verdicts(N).stream().filter(c -> !c.ok()).map(ForwardVerifier.Check::what).toList())
        .anyMatch(s -> s.startsWith("every record the producer had acknowledged is on Brook"));
  }

  @Test
  void differentClusterIdsFail() {
    assertThat(failures(with(5, r -> {
      RecordHeaders h = new RecordHeaders(r.headers().toArray());
      h.remove(ForwardVerifier.ORIGIN_CLUSTER);
      h.add(ForwardVerifier.ORIGIN_CLUSTER, "cluster-2".getBytes(StandardCharsets.UTF_8));
      return new ConsumerRecord<>(r.topic(), r.partition(), 0, r.timestamp(), TimestampType.CREATE_TIME, -1, -1,
          r.key(), r.value(), h, Optional.empty());
    }))).singleElement().asString().startsWith("brook.origin.cluster");
  }
}
