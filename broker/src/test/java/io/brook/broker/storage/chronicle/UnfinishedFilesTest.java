package io.brook.broker.storage.chronicle;

import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.LogOptions;
import io.brook.broker.storage.ManualClock;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.storage.StorageException;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.dump.DumpSummary;
import io.brook.broker.storage.dump.LogDump;
import io.brook.broker.storage.dump.LogDumpTest;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files a kill left while Chronicle created them (both found by the crash harness, CrashIT). A
 * segment file at its full length, all zeros, its header never written: Chronicle waited about 45 s
 * for another process to finish it at every open and again at the first append, which then failed. A
 * queue's metadata.cq4t with its header still marked incomplete: Chronicle waited 10 s and threw, so
 * the broker could not start. Neither can hold a record.
 */
class UnfinishedFilesTest {
  static final long T0 = 1_763_800_000_000L;
  @TempDir Path dir;

  /** What the kill leaves: the next second's segment file, created at Chronicle's size, nothing written. */
  void leaveAnUnfinishedSegment(long cycleStartMs) throws Exception {
    String name = DateTimeFormatter.ofPattern(ChronicleRolls.of(SegmentRoll.ONE_SECOND).format()).withZone(ZoneOffset.UTC)
        .format(Instant.ofEpochMilli(cycleStartMs)) + ".cq4";
    long size;
    try (Stream<Path> files = Files.list(dir)) {
      size = Files.size(files.filter(f -> f.toString().endsWith(".cq4")).findFirst().orElseThrow());
    }
    try (RandomAccessFile f = new RandomAccessFile(dir.resolve(name).toFile(), "rw")) {
      f.setLength(size);
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void aSegmentFileLeftUnfinishedByAKillDoesNotStallRecoveryOrAppends() throws Exception {
    ManualClock clock = new ManualClock(T0);
    LogOptions options = new LogOptions(SegmentRoll.ONE_SECOND, clock, true);
    try (ChronicleLog log = ChronicleLog.open(dir, options)) {
      log.append(AppendBatch.of(List.of(LogRecord.of(null, "kept".getBytes(StandardCharsets.UTF_8), T0, List.of())),
          T0));
    }
    leaveAnUnfinishedSegment(T0 + 1000);
    clock.advance(2000);

    long started = System.nanoTime();
    try (ChronicleLog log = ChronicleLog.open(dir, options)) {
      assertThat(log.endOffset()).isEqualTo(1);
      assertThat(log.append(AppendBatch.of(List.of(LogRecord.of(null, "next".getBytes(StandardCharsets.UTF_8), -1,
          List.of())), clock.millis())).baseOffset()).isEqualTo(1);
      assertThat(log.read(0, 10, 1 << 20).records()).extracting(r -> new String(r.value(), StandardCharsets.UTF_8))
          .containsExactly("kept", "next");
    }
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
    assertThat(seconds).as("open, append and read after the kill took %d s", seconds).isLessThan(5);
  }

  @Test
  void onlyFilesWithoutAFinishedHeaderCountAsUnfinished() throws Exception {
    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults())) {
      log.append(AppendBatch.of(List.of(LogRecord.of(null, "x".getBytes(StandardCharsets.UTF_8), T0, List.of())), T0));
    }
    Path finished;
    try (Stream<Path> files = Files.list(dir)) {
      finished = files.filter(f -> f.toString().endsWith(".cq4")).findFirst().orElseThrow();
    }
    assertThat(UnfinishedFiles.unfinished(finished)).isFalse();

    Path zeros = dir.resolve("zeros.cq4");
    try (RandomAccessFile f = new RandomAccessFile(zeros.toFile(), "rw")) {
      f.setLength(1 << 20);
    }
    assertThat(UnfinishedFiles.unfinished(zeros)).isTrue();
    assertThat(UnfinishedFiles.unfinished(Files.write(dir.resolve("empty.cq4"), new byte[0]))).isTrue();

    byte[] incompleteHeader = new byte[4096];
    incompleteHeader[3] = (byte) 0x80; // little-endian 0x80000000: Chronicle's "not complete" bit
    assertThat(UnfinishedFiles.unfinished(Files.write(dir.resolve("incomplete.cq4"), incompleteHeader))).isTrue();

    byte[] dataWithoutHeader = new byte[4096];
    dataWithoutHeader[100] = 7; // not what a kill leaves: never removed
    assertThat(UnfinishedFiles.unfinished(Files.write(dir.resolve("odd.cq4"), dataWithoutHeader))).isFalse();

    assertThat(UnfinishedFiles.segments(dir)).extracting(p -> p.getFileName().toString())
        .containsExactlyInAnyOrder("zeros.cq4", "empty.cq4", "incomplete.cq4");
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void theDumpReportsAnUnfinishedSegmentAsLeftoverWithoutTouchingIt() throws Exception {
    ManualClock clock = new ManualClock(T0);
    try (ChronicleLog log = ChronicleLog.open(dir, new LogOptions(SegmentRoll.ONE_SECOND, clock, false))) {
      log.append(AppendBatch.of(List.of(LogRecord.of(null, "kept".getBytes(StandardCharsets.UTF_8), T0, List.of())),
          T0));
    }
    leaveAnUnfinishedSegment(T0 + 1000);
    var before = LogDumpTest.fingerprint(dir);
    long started = System.nanoTime();

    DumpSummary s = LogDump.scan(dir, false, new LogDumpTest.Collected());

    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).isLessThan(5);
    assertThat(s.tail()).isEqualTo(DumpSummary.Tail.LEFTOVER);
    assertThat(s.records()).isEqualTo(1);
    assertThat(s.corrupt()).isFalse();
    assertThat(LogDumpTest.fingerprint(dir)).isEqualTo(before);
  }

  /** What a kill while Chronicle created the queue leaves: metadata.cq4t with its header marked incomplete. */
  void leaveAnUnfinishedMetadataFile() throws Exception {
    ChronicleLog.open(dir, LogOptions.defaults()).close();
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(dir.resolve("metadata.cq4t"),
        java.nio.file.StandardOpenOption.WRITE)) {
      ch.write(java.nio.ByteBuffer.wrap(new byte[] {0, 0, 0, (byte) 0x80}), 0);
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aQueueWhoseCreationWasCutShortOpensEmptyAtOnce() throws Exception {
    leaveAnUnfinishedMetadataFile();
    assertThat(UnfinishedFiles.metadata(dir)).isTrue();
    long started = System.nanoTime();
    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults())) {
      assertThat(log.endOffset()).isZero();
      assertThat(log.append(AppendBatch.of(List.of(LogRecord.of(null, "x".getBytes(StandardCharsets.UTF_8), T0,
          List.of())), T0)).baseOffset()).isZero();
    }
    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).isLessThan(5);
    assertThat(UnfinishedFiles.metadata(dir)).isFalse();
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void anUnfinishedMetadataFileBesideSegmentsIsAClearErrorNotAGuess() throws Exception {
    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults())) {
      log.append(AppendBatch.of(List.of(LogRecord.of(null, "x".getBytes(StandardCharsets.UTF_8), T0, List.of())), T0));
    }
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(dir.resolve("metadata.cq4t"),
        java.nio.file.StandardOpenOption.WRITE)) {
      ch.write(java.nio.ByteBuffer.wrap(new byte[] {0, 0, 0, (byte) 0x80}), 0);
    }
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ChronicleLog.open(dir, LogOptions.defaults()))
        .isInstanceOf(StorageException.class).hasMessageContaining("was never finished, yet the directory holds");
    assertThat(UnfinishedFiles.metadata(dir)).as("left as it was").isTrue();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> LogDump.scan(dir, false, new LogDumpTest.Collected()))
        .isInstanceOf(StorageException.class).hasMessageContaining("was never finished");
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void theDumpReportsAQueueWhoseCreationWasCutShortAsTornAndEmpty() throws Exception {
    leaveAnUnfinishedMetadataFile();
    var before = LogDumpTest.fingerprint(dir);
    long started = System.nanoTime();

    DumpSummary s = LogDump.scan(dir, true, new LogDumpTest.Collected());

    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).isLessThan(5);
    assertThat(s.tail()).isEqualTo(DumpSummary.Tail.TORN);
    assertThat(s.batches()).isZero();
    assertThat(s.corrupt()).isFalse();
    assertThat(LogDumpTest.fingerprint(dir)).isEqualTo(before);
  }
}
