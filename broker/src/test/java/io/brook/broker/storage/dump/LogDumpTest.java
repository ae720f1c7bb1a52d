package io.brook.broker.storage.dump;

import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.BatchCodec;
import io.brook.broker.storage.BatchHeader;
import io.brook.broker.storage.ByteWriter;
import io.brook.broker.storage.LogOptions;
import io.brook.broker.storage.ManualClock;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.storage.chronicle.ChronicleLog;
import io.brook.broker.storage.chronicle.ChronicleRolls;
import io.brook.broker.storage.chronicle.HaltMidAppend;
import io.brook.broker.records.LogRecord;
import io.brook.broker.records.RecordHeader;
import io.brook.broker.records.ProducerStamp;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The offline dump: what it reports of sound logs, what it finds in broken ones, and that it never writes. */
public class LogDumpTest {
  static final long T0 = 1_763_800_000_000L;
  @TempDir Path dir;

  /** Collects what the dump reports (also for the Chronicle engine's tests of unfinished files). */
  public static final class Collected implements DumpListener {
    final List<String> segments = new ArrayList<>();
    final List<DumpedBatch> batches = new ArrayList<>();
    final List<LogRecord> records = new ArrayList<>();

    @Override
    public void segment(String fileName, int cycle) {
      segments.add(fileName);
    }

    @Override
    public void batch(DumpedBatch batch) {
      batches.add(batch);
    }

    @Override
    public void record(LogRecord record) {
      records.add(record);
    }
  }

  static LogRecord keyed(String key, String value, long ts) {
    return LogRecord.of(key == null ? null : key.getBytes(StandardCharsets.UTF_8),
        value.getBytes(StandardCharsets.UTF_8), ts, List.of(RecordHeader.of("h", new byte[] {1})));
  }

  @Test
  void reportsEveryBatchAndRecordAcrossSegmentsAndWritesNothing() throws Exception {
    ManualClock clock = new ManualClock(T0);
    try (ChronicleLog log = ChronicleLog.open(dir, new LogOptions(SegmentRoll.ONE_SECOND, clock, false))) {
      log.append(AppendBatch.of(List.of(keyed("k0", "v0", T0 + 5), keyed(null, "v1", T0 + 9), keyed("k2", "v2", T0)),
          clock.millis()));
      clock.advance(1000); // the next batch opens a second segment
      log.append(new AppendBatch(List.of(keyed("k3", "value-3", T0 + 1000)), clock.millis(), false,
          new ProducerStamp(42, (short) 3, 17)));
    }
    Map<String, String> before = fingerprint(dir);

    Collected seen = new Collected();
    DumpSummary s = LogDump.scan(dir, true, seen);

    assertThat(fingerprint(dir)).as("content and mtime of every file").isEqualTo(before);
    assertThat(seen.segments).hasSize(2).doesNotHaveDuplicates().allSatisfy(f -> assertThat(f).endsWith(".cq4"));
    assertThat(seen.batches).extracting(DumpedBatch::baseOffset, DumpedBatch::recordCount, DumpedBatch::checksumOk,
        DumpedBatch::problem).containsExactly(org.assertj.core.groups.Tuple.tuple(0L, 3, true, null),
            org.assertj.core.groups.Tuple.tuple(3L, 1, true, null));
    DumpedBatch first = seen.batches.get(0);
    assertThat(first.firstTimestamp()).isEqualTo(T0 + 5);
    assertThat(first.maxTimestamp()).isEqualTo(T0 + 9);
    assertThat(first.appendTimeMs()).isEqualTo(T0);
    assertThat(first.producer().isNone()).isTrue();
    assertThat(seen.batches.get(1).producer()).isEqualTo(new ProducerStamp(42, (short) 3, 17));
    assertThat(seen.batches.get(1).segment()).isNotEqualTo(first.segment());
    assertThat(seen.records).extracting(LogRecord::offset).containsExactly(0L, 1L, 2L, 3L);
    assertThat(seen.records).extracting(r -> r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8))
        .containsExactly("k0", null, "k2", "k3");
    assertThat(seen.records.get(3).value()).hasSize(7);
    assertThat(seen.records.get(3).headers()).hasSize(1);

    assertThat(s.segments()).isEqualTo(2);
    assertThat(s.batches()).isEqualTo(2);
    assertThat(s.records()).isEqualTo(4);
    assertThat(s.bytes()).isEqualTo(first.sizeBytes() + seen.batches.get(1).sizeBytes());
    assertThat(s.firstOffset()).isZero();
    assertThat(s.lastOffset()).isEqualTo(3);
    assertThat(s.roll()).isEqualTo("1s");
    assertThat(s.tail()).isEqualTo(DumpSummary.Tail.CLEAN);
    assertThat(s.brokerRunning()).isFalse();
    assertThat(s.corrupt()).isFalse();
    assertThat(s.problems()).isEmpty();
  }

  @Test
  void withoutRecordsOnlyBatchesAreReported() {
    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults())) {
      log.append(AppendBatch.of(List.of(keyed("a", "1", T0), keyed("b", "2", T0)), T0));
    }
    Collected seen = new Collected();
    DumpSummary s = LogDump.scan(dir, false, seen);
    assertThat(seen.records).isEmpty();
    assertThat(seen.batches).hasSize(1);
    assertThat(s.records()).isEqualTo(2);
  }

  @Test
  void anEmptyPartitionHasNoOffsets() {
    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults())) {
      assertThat(log.endOffset()).isZero();
    }
    DumpSummary s = LogDump.scan(dir, true, new Collected());
    assertThat(s.batches()).isZero();
    assertThat(s.firstOffset()).isEqualTo(-1);
    assertThat(s.lastOffset()).isEqualTo(-1);
    assertThat(s.corrupt()).isFalse();
    assertThat(s.tail()).isEqualTo(DumpSummary.Tail.CLEAN);
  }

  /**
   * Found by the crash harness: a kill after Chronicle finished a new queue's metadata.cq4t but before
   * it added the write lock's key leaves the key absent, and a read-only store cannot create it (the
   * dump failed with "key chronicle.write.lock does not exist in readOnly TableStore"). Emulated by
   * erasing the table's entries from that key on.
   */
  @Test
  void aQueueKilledBeforeItsLocksExistedIsDumpedAsEmptyAndOpens() throws Exception {
    SingleChronicleQueueBuilder.binary(dir).rollCycle(ChronicleRolls.of(SegmentRoll.HOUR)).build().close();
    eraseMetadataFrom("chronicle.write.lock");

    DumpSummary s = LogDump.scan(dir, true, new Collected());
    assertThat(s.batches()).isZero();
    assertThat(s.tail()).isEqualTo(DumpSummary.Tail.CLEAN);
    assertThat(s.corrupt()).isFalse();
    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults())) { // and the broker opens it
      assertThat(log.append(AppendBatch.of(List.of(keyed("k", "v", T0)), T0)).baseOffset()).isZero();
    }
  }

  /** The same one step earlier: even the directory listing's keys are missing ("listing.highestCycle"). */
  @Test
  void aQueueKilledBeforeItsListingExistedIsDumpedAsACreationCutShortAndOpens() throws Exception {
    SingleChronicleQueueBuilder.binary(dir).rollCycle(ChronicleRolls.of(SegmentRoll.HOUR)).build().close();
    eraseMetadataFrom("listing.highestCycle");
    Map<String, String> before = fingerprint(dir);

    DumpSummary s = LogDump.scan(dir, true, new Collected());
    assertThat(s.batches()).isZero();
    assertThat(s.tail()).isEqualTo(DumpSummary.Tail.TORN);
    assertThat(s.corrupt()).isFalse();
    assertThat(fingerprint(dir)).isEqualTo(before);
    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults())) {
      assertThat(log.append(AppendBatch.of(List.of(keyed("k", "v", T0)), T0)).baseOffset()).isZero();
    }
  }

  /** Zeroes the metadata table from the entry of {@code key} on: what a kill before that entry leaves. */
  void eraseMetadataFrom(String key) throws IOException {
    Path metadata = dir.resolve("metadata.cq4t");
    byte[] all = Files.readAllBytes(metadata);
    byte[] name = key.getBytes(StandardCharsets.US_ASCII);
    int at = -1;
    for (int i = 0; i + name.length <= all.length && at < 0; i++) {
      if (Arrays.equals(all, i, i + name.length, name, 0, name.length)) {
        at = i - 6; // the entry's document header and field prefix come first
      }
    }
    assertThat(at).isPositive();
    try (FileChannel ch = FileChannel.open(metadata, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.allocate(4096), at);
    }
  }

  @Test
  void aFlippedByteInTheRecordsFailsTheChecksum() throws IOException {
    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults())) {
      log.append(AppendBatch.of(List.of(keyed("k", "fine", T0)), T0));
      log.append(AppendBatch.of(List.of(keyed("k", "needle-to-flip", T0)), T0));
      log.append(AppendBatch.of(List.of(keyed("k", "fine-again", T0)), T0));
    }
    flipFirst(dir, "needle-to-flip");
    Collected seen = new Collected();
    DumpSummary s = LogDump.scan(dir, true, seen);
    assertThat(seen.batches).extracting(DumpedBatch::checksumOk).containsExactly(true, false, true);
    assertThat(s.checksumFailures()).isEqualTo(1);
    assertThat(s.corrupt()).isTrue();
    assertThat(s.problems()).singleElement().asString().contains("checksum mismatch", "offset 1");
    assertThat(s.records()).as("the dump goes on past a bad batch").isEqualTo(3);
  }

  @Test
  void gapsOverlapsAndBrokenHeadersAreFound() {
    // Written below the log on purpose: ChronicleLog itself can never store such a sequence.
    try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(dir).rollCycle(ChronicleRolls.of(SegmentRoll.HOUR))
        .build(); ExcerptAppender appender = q.createAppender()) {
      long position = 0;
      position = writeRaw(appender, 0, 2, position); // 0..1
      position = writeRaw(appender, 5, 1, position); // gap: 2..4
      position = writeRaw(appender, 4, 3, position); // overlap: 4..5 again
      try (DocumentContext dc = appender.writingDocument()) {
        dc.wire().bytes().write(new byte[] {9, 9, 9}); // not a batch at all
      }
    }
    Collected seen = new Collected();
    DumpSummary s = LogDump.scan(dir, false, seen);
    assertThat(s.gaps()).isEqualTo(1);
    assertThat(s.overlaps()).isEqualTo(1);
    assertThat(s.malformedBatches()).isEqualTo(1);
    assertThat(s.checksumFailures()).isZero();
    assertThat(s.corrupt()).isTrue();
    assertThat(seen.batches.get(1).problem()).contains("gap: offsets 2..4 are missing");
    assertThat(seen.batches.get(2).problem()).contains("overlap: offsets 4..5");
    assertThat(seen.batches.get(3).baseOffset()).isEqualTo(-1);
    assertThat(s.problems()).hasSize(3);
  }

  @Test
  void aLogPositionOutOfStepIsAnInconsistency() {
    try (SingleChronicleQueue q = SingleChronicleQueueBuilder.binary(dir).rollCycle(ChronicleRolls.of(SegmentRoll.HOUR))
        .build(); ExcerptAppender appender = q.createAppender()) {
      writeRaw(appender, 0, 1, 0);
      writeRaw(appender, 1, 1, 12_345); // bytes before it do not add up
    }
    DumpSummary s = LogDump.scan(dir, false, new Collected());
    assertThat(s.inconsistencies()).isEqualTo(1);
    assertThat(s.gaps() + s.overlaps()).isZero();
    assertThat(s.corrupt()).isTrue();
  }

  /** Appends one encoded batch with the given base offset straight to Chronicle; returns the next log position. */
  static long writeRaw(ExcerptAppender appender, long base, int count, long logPosition) {
    List<LogRecord> records = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      records.add(keyed("k" + (base + i), "v", T0));
    }
    ByteWriter out = new ByteWriter(1024);
    BatchHeader h = BatchCodec.encode(out, AppendBatch.of(records, T0), base, Long.MIN_VALUE, logPosition,
        new CRC32C());
    try (DocumentContext dc = appender.writingDocument()) {
      dc.wire().bytes().write(out.array(), 0, out.position());
    }
    return h.endLogPosition();
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void anAppendCutShortIsATornTailNotCorruption() throws Exception {
    assertThat(HaltMidAppend.runInAChild(dir, 25, dir.resolveSibling(dir.getFileName() + "-child.log").toFile())).isTrue();
    Map<String, String> before = fingerprint(dir);

    DumpSummary s = LogDump.scan(dir, false, new Collected());
    assertThat(s.tail()).isEqualTo(DumpSummary.Tail.TORN);
    assertThat(s.records()).isEqualTo(25);
    assertThat(s.lastOffset()).isEqualTo(24);
    assertThat(s.corrupt()).isFalse();
    assertThat(fingerprint(dir)).as("the stale lock is only read, not cleared").isEqualTo(before);

    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults())) { // the broker's recovery
      assertThat(log.endOffset()).isEqualTo(25);
    }
    DumpSummary recovered = LogDump.scan(dir, false, new Collected());
    assertThat(recovered.tail()).as("lock cleared, the unfinished bytes still there")
        .isEqualTo(DumpSummary.Tail.LEFTOVER);
    assertThat(recovered.corrupt()).isFalse();

    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults())) {
      log.append(AppendBatch.of(List.of(keyed("k", "a longer value than the five bytes left behind", T0)), T0));
    }
    DumpSummary after = LogDump.scan(dir, false, new Collected());
    assertThat(after.tail()).as("the next append overwrote the leftovers").isEqualTo(DumpSummary.Tail.CLEAN);
    assertThat(after.records()).isEqualTo(26);
    assertThat(after.corrupt()).isFalse();
  }

  @Test
  void whatIsNotAPartitionDirectoryIsSaidPlainly() throws IOException {
    assertThatThrownBy(() -> LogDump.scan(dir.resolve("missing"), false, new Collected()))
        .isInstanceOf(NotAPartitionDirectoryException.class).hasMessageContaining("does not exist");
    Path file = Files.writeString(dir.resolve("file.txt"), "x");
    assertThatThrownBy(() -> LogDump.scan(file, false, new Collected()))
        .isInstanceOf(NotAPartitionDirectoryException.class).hasMessageContaining("is not a directory");
    assertThatThrownBy(() -> LogDump.scan(dir, false, new Collected()))
        .isInstanceOf(NotAPartitionDirectoryException.class).hasMessageContaining("no metadata.cq4t");
    Files.writeString(dir.resolve("topic.properties"), "name=t\n");
    assertThatThrownBy(() -> LogDump.scan(dir, false, new Collected()))
        .isInstanceOf(NotAPartitionDirectoryException.class).hasMessageContaining("is a topic directory");
  }

  @Test
  void theDataDirectoryIsFoundForTopicPartitionsAndGroupJournalsOnly() {
    Path data = dir.resolve("data");
    assertThat(LogDump.dataDirectoryOf(data.resolve("topics/orders/0"))).isEqualTo(data.toAbsolutePath());
    assertThat(LogDump.dataDirectoryOf(data.resolve("groups/g/journal-3"))).isEqualTo(data.toAbsolutePath());
    assertThat(LogDump.dataDirectoryOf(dir.resolve("copy/0"))).isNull();
  }

  /** Replaces the first byte of {@code needle} in the segment files. */
  static void flipFirst(Path queueDir, String needle) throws IOException {
    byte[] pattern = needle.getBytes(StandardCharsets.UTF_8);
    for (Path f : cq4Files(queueDir)) {
      byte[] all = Files.readAllBytes(f);
      for (int i = 0; i + pattern.length <= all.length; i++) {
        if (Arrays.equals(all, i, i + pattern.length, pattern, 0, pattern.length)) {
          try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {(byte) (all[i] ^ 0x20)}), i);
          }
          return;
        }
      }
    }
    throw new AssertionError(needle + " not found in " + queueDir);
  }

  static List<Path> cq4Files(Path queueDir) throws IOException {
    try (Stream<Path> files = Files.list(queueDir)) {
      return files.filter(f -> f.toString().endsWith(".cq4")).sorted().toList();
    }
  }

  /** File name → digest of its content and its modification time. */
  public static Map<String, String> fingerprint(Path queueDir) throws Exception {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> files = Files.list(queueDir)) {
      for (Path f : files.toList()) {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(f));
        out.put(f.getFileName().toString(), HexFormat.of().formatHex(digest) + " " + Files.getLastModifiedTime(f));
      }
    }
    return out;
  }
}
