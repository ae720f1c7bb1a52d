package io.brook.broker.storage.chronicle;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.records.LogRecord;
import io.brook.broker.records.ProducerStamp;
import io.brook.broker.records.RecordHeader;
import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.BatchConversion;
import io.brook.broker.storage.BatchHeader;
import io.brook.broker.storage.BatchInfo;
import io.brook.broker.storage.ByteWriter;
import io.brook.broker.storage.KafkaBatches;
import io.brook.broker.storage.LogOptions;
import io.brook.broker.storage.ManualClock;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.storage.Version1Encoder;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.BatchReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data directory written before issue 25 holds version 1 batches only: the broker opens it,
 * recovers it, reads it every way, and appends version 2 batches after them (D46). The old batches
 * are written as the earlier broker wrote them: its encoder (now {@link Version1Encoder}), one
 * Chronicle document each.
 */
class Version1DataTest {
  static final long T0 = 1_763_800_000_000L;
  @TempDir Path dir;
  final ManualClock clock = new ManualClock(T0);

  /** Three version 1 batches, the second an idempotent producer's, as the earlier broker stored them. */
  private void writeVersion1Log() {
    try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(dir).rollCycle(ChronicleRolls.of(SegmentRoll.HOUR))
        .timeProvider(clock::millis).build(); ExcerptAppender appender = q.createAppender()) {
      long position = 0;
      long runningMax = Long.MIN_VALUE;
      long base = 0;
      List<AppendBatch> batches = List.of(
          AppendBatch.of(List.of(rec("a", "v0", T0 + 10), rec(null, "v1", T0 - 5)), T0),
          new AppendBatch(List.of(rec("b", "v2", T0 + 30)), T0 + 1, false, new ProducerStamp(9, (short) 2, 0)),
          new AppendBatch(List.of(rec("c", "v3", T0 + 20), rec("d", "v4", T0 + 21)), T0 + 2, true, ProducerStamp.NONE));
      for (AppendBatch b : batches) {
        ByteWriter out = new ByteWriter(256);
        BatchHeader h = Version1Encoder.encode(out, b, base, runningMax, position, new CRC32C());
        try (DocumentContext dc = appender.writingDocument()) {
          dc.wire().bytes().write(out.array(), 0, out.position());
        }
        position = h.endLogPosition();
        runningMax = h.runningMaxTimestamp();
        base = h.nextOffset();
      }
    }
  }

  private ChronicleLog open() {
    return ChronicleLog.open(dir, new LogOptions(SegmentRoll.HOUR, clock, true));
  }

  @Test
  void aVersion1LogOpensReadsAndTakesVersion2BatchesAfterIt() {
    writeVersion1Log();
    try (ChronicleLog log = open()) {
      assertThat(log.endOffset()).isEqualTo(5);
      List<LogRecord> old = log.read(0, 100, 1 << 20).records();
      assertThat(old).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
          .containsExactly("v0", "v1", "v2", "v3", "v4");
      assertThat(old.get(3).timestamp()).as("log append time").isEqualTo(T0 + 2);
      assertThat(log.offsetForTimestamp(T0 + 25)).isEqualTo(2);
      List<BatchInfo> infos = new ArrayList<>();
      log.forEachBatch(0, infos::add);
      assertThat(infos).extracting(BatchInfo::producer)
          .containsExactly(ProducerStamp.NONE, new ProducerStamp(9, (short) 2, 0), ProducerStamp.NONE);
      byte[] stored = log.readBatches(0, 1, 1 << 20, true).batches().get(0);
      assertThat(BatchFormat.version(stored, 0)).isEqualTo(BatchFormat.VERSION);

      log.append(new AppendBatch(List.of(rec("e", "v5", T0 + 40)), T0 + 3, false, new ProducerStamp(9, (short) 2, 1)));
      assertThat(log.endOffset()).isEqualTo(6);
    }
    try (ChronicleLog log = open()) { // recovery now ends on a version 2 batch after version 1 ones
      assertThat(log.endOffset()).isEqualTo(6);
      List<byte[]> batches = log.readBatches(0, 100, 1 << 20, true).batches();
      assertThat(batches).extracting(b -> (int) BatchFormat.version(b, 0)).containsExactly(1, 1, 1, 2);
      assertThat(log.read(4, 100, 1 << 20).records()).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
          .containsExactly("v4", "v5");
      assertThat(log.offsetForTimestamp(T0 + 35)).isEqualTo(5);
      List<BatchInfo> infos = new ArrayList<>();
      log.forEachBatch(0, infos::add);
      assertThat(infos.get(3).producer()).isEqualTo(new ProducerStamp(9, (short) 2, 1));
      assertThat(log.sizeBytes()).isEqualTo(batches.stream().mapToInt(b -> b.length).sum());

      // A Kafka reader gets every batch as a Kafka batch, old ones converted, with the log's offsets.
      BatchReader in = new BatchReader();
      List<Long> offsets = new ArrayList<>();
      List<String> values = new ArrayList<>();
      for (byte[] b : batches) {
        MutableRecordBatch k = KafkaBatches.readStored(BatchConversion.toVersion2(b, in));
        for (Record r : KafkaBatches.records(k)) {
          offsets.add(r.offset());
          values.add(KafkaBatches.string(r.value()));
        }
        if (b == batches.get(2)) {
          assertThat(k.timestampType()).isEqualTo(org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME);
          assertThat(k.maxTimestamp()).isEqualTo(T0 + 2);
        }
        if (b == batches.get(1)) {
          assertThat(k.producerId()).isEqualTo(9);
          assertThat(k.baseSequence()).isZero();
        }
      }
      assertThat(offsets).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
      assertThat(values).containsExactly("v0", "v1", "v2", "v3", "v4", "v5");
    }
  }

  private static LogRecord rec(String key, String value, long ts) {
    return LogRecord.of(key == null ? null : key.getBytes(StandardCharsets.UTF_8),
        value.getBytes(StandardCharsets.UTF_8), ts, List.of(RecordHeader.of("h", new byte[] {1})));
  }
}
