package io.brook.broker.storage.chronicle;

import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.AppendResult;
import io.brook.broker.storage.BatchReadResult;
import io.brook.broker.storage.LogOptions;
import io.brook.broker.storage.ManualClock;
import io.brook.broker.storage.OffsetOutOfRangeException;
import io.brook.broker.storage.ReadResult;
import io.brook.broker.storage.SegmentInfo;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.storage.StorageException;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.dump.DumpSummary;
import io.brook.broker.storage.dump.LogDump;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** What only the Chronicle log must do: survive reopening and a writer killed mid-append. */
class ChronicleLogTest {
  static final long T0 = 1_763_800_000_000L;
  @TempDir Path dir;

  @Test
  void reopeningKeepsOffsetsSizesAndTimeIndexAndContinuesAtTheEnd() {
    ManualClock clock = new ManualClock(T0);
    LogOptions options = new LogOptions(SegmentRoll.ONE_SECOND, clock, true);
    long size;
    try (ChronicleLog log = ChronicleLog.open(dir, options)) {
      for (int i = 0; i < 50; i++) {
        log.append(AppendBatch.of(List.of(record("a" + i, T0 + i * 10), record("b" + i, T0 + i * 10 + 5)),
            clock.millis()));
        if (i % 10 == 9) {
          clock.advance(1000);
        }
      }
      size = log.sizeBytes();
    }
    try (ChronicleLog log = ChronicleLog.open(dir, options)) {
      assertThat(log.startOffset()).isZero();
      assertThat(log.endOffset()).isEqualTo(100);
      assertThat(log.segmentCount()).isEqualTo(5);
      assertThat(log.sizeBytes()).isEqualTo(size);
      assertThat(log.offsetForTimestamp(T0 + 255)).isEqualTo(51);
      assertThat(value(log.read(77, 1, 100).records().get(0))).isEqualTo("b38");
      assertThat(log.append(AppendBatch.of(List.of(record("next", T0)), clock.millis())).baseOffset()).isEqualTo(100);
    }
  }

  /**
   * A consumer's fetches stop inside batches (record and byte limits); the next read continues from
   * the batch the reader still holds. Other reads moving the same pooled tailer (a time lookup), a
   * seek back inside the held batch, and a segment boundary must not make it answer wrong records.
   */
  @Test
  void readsThatStopInsideABatchContinueWithTheRightRecords() {
    ManualClock clock = new ManualClock(T0);
    try (ChronicleLog log = ChronicleLog.open(dir, new LogOptions(SegmentRoll.ONE_SECOND, clock, true))) {
      for (int b = 0; b < 6; b++) {
        List<LogRecord> batch = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          batch.add(record("r" + (b * 10 + i), T0 + b * 10L + i));
        }
        log.append(AppendBatch.of(batch, clock.millis()));
        if (b == 2) {
          clock.advance(1000); // batches 3-5 in a second segment
        }
      }
      List<String> got = new ArrayList<>();
      long offset = 0;
      for (int n = 0; offset < 60; n++) {
        ReadResult rr = n % 2 == 0 ? log.read(offset, 3, 1 << 20) : log.read(offset, 100, 30);
        for (LogRecord r : rr.records()) {
          assertThat(r.offset()).isEqualTo(got.size());
          got.add(value(r));
        }
        assertThat(rr.nextOffset()).isGreaterThan(offset);
        offset = rr.nextOffset();
        if (n % 3 == 1) {
          assertThat(log.offsetForTimestamp(T0 + 42)).isEqualTo(42); // moves the pooled tailer elsewhere
        }
      }
      List<String> want = new ArrayList<>();
      for (int i = 0; i < 60; i++) {
        want.add("r" + i);
      }
      assertThat(got).isEqualTo(want);

      assertThat(values(log.read(21, 2, 1 << 20))).containsExactly("r21", "r22");
      assertThat(values(log.read(23, 2, 1 << 20))).containsExactly("r23", "r24");
      assertThat(values(log.read(20, 3, 1 << 20))).containsExactly("r20", "r21", "r22"); // back inside it
      assertThat(values(log.read(28, 4, 1 << 20))).containsExactly("r28", "r29", "r30", "r31");
      assertThat(values(log.read(5, 2, 1 << 20))).containsExactly("r5", "r6"); // elsewhere
    }
  }

  private static List<String> values(ReadResult rr) {
    List<String> out = new ArrayList<>();
    rr.records().forEach(r -> out.add(value(r)));
    return out;
  }

  @Test
  void reopeningWithAnotherRollKeepsThePartitionsOwnRoll() {
    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults().withRoll(SegmentRoll.DAY))) {
      log.append(AppendBatch.of(List.of(record("x", T0)), T0));
    }
    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults().withRoll(SegmentRoll.ONE_SECOND))) {
      assertThat(log.endOffset()).isEqualTo(1);
      assertThat(value(log.read(0, 1, 100).records().get(0))).isEqualTo("x");
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aWriterKilledMidAppendLeavesNoLockAndNoLostRecords() throws Exception {
    assertThat(HaltMidAppend.runInAChild(dir, 25, new File(dir.toFile(), "child.log"))).isTrue();
    assertThat(java.nio.file.Files.readString(dir.resolve("child.log"))).contains("holding the write lock");

    long started = System.nanoTime();
    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults())) {
      assertThat(log.endOffset()).isEqualTo(25);
      AppendResult r = log.append(AppendBatch.of(List.of(record("after", T0)), System.currentTimeMillis()));
      assertThat(r.baseOffset()).isEqualTo(25);
      List<LogRecord> all = log.read(0, 100, 1 << 20).records();
      assertThat(all).hasSize(26);
      assertThat(value(all.get(24))).isEqualTo("v24");
      assertThat(value(all.get(25))).isEqualTo("after");
    }
    // Chronicle's own recovery would wait for its lock timeout; clearing the stale lock is immediate.
    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).isLessThan(5);
  }

  private void haltAfterCompletingAppend(int batches, SegmentRoll roll, long t0, long t1) throws Exception {
    HaltAfterCompletingAppend.runInChild(dir, batches, roll, t0, t1);
  }

  /**
   * A kill -9 after Chronicle marked a document complete but before it recorded the segment's write
   * position and index: readers (and the dump) see the batch, Chronicle's lastIndex() does not. The
   * log must end after that batch, or the next append reuses its offsets (CrashIT, seed
   * -1158006001750368754: offset 1419 twice, the first alone in a new segment).
   */
  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aBatchCompletedInANewSegmentByAWriterKilledBeforeChronicleIndexedItIsKept() throws Exception {
    haltAfterCompletingAppend(20, SegmentRoll.ONE_SECOND, T0, T0 + 1000);
    assertAdoptedAfterRestart(new LogOptions(SegmentRoll.ONE_SECOND, new ManualClock(T0 + 5000), true), 20);
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aBatchCompletedInANewSegmentIsKeptWhenAppendsResumeInThatSegment() throws Exception {
    haltAfterCompletingAppend(20, SegmentRoll.ONE_SECOND, T0, T0 + 1000);
    assertAdoptedAfterRestart(new LogOptions(SegmentRoll.ONE_SECOND, new ManualClock(T0 + 1500), true), 20);
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aBatchCompletedAsTheQueuesFirstDocumentIsKept() throws Exception {
    haltAfterCompletingAppend(0, SegmentRoll.ONE_SECOND, T0, T0);
    assertAdoptedAfterRestart(new LogOptions(SegmentRoll.ONE_SECOND, new ManualClock(T0 + 500), true), 0);
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aBatchCompletedInTheSameSegmentByAWriterKilledBeforeChronicleIndexedItIsKept() throws Exception {
    haltAfterCompletingAppend(20, SegmentRoll.HOUR, T0, T0 + 10);
    assertAdoptedAfterRestart(new LogOptions(SegmentRoll.HOUR, new ManualClock(T0 + 20), true), 20);
  }

  /** After the halt: the completed batch is offset n, appends continue after it, every offset reads back once. */
  private void assertAdoptedAfterRestart(LogOptions options, int n) {
    int more = 100; // past Chronicle's index spacing: later appends are indexed, and must be found by offset
    try (ChronicleLog log = ChronicleLog.open(dir, options)) {
      assertThat(log.endOffset()).isEqualTo(n + 1);
      assertThat(value(log.read(n, 1, 100).records().get(0))).isEqualTo("orphan");
      for (int i = 0; i < more; i++) {
        assertThat(log.append(AppendBatch.of(List.of(record("after" + i, T0)), options.clock().millis())).baseOffset())
            .isEqualTo(n + 1 + i);
      }
    }
    for (int reopen = 0; reopen < 2; reopen++) {
      try (ChronicleLog log = ChronicleLog.open(dir, options)) {
        assertThat(log.endOffset()).isEqualTo(n + 1 + more);
        for (int o = 0; o < n + 1 + more; o++) {
          String expected = o < n ? "v" + o : o == n ? "orphan" : "after" + (o - n - 1);
          List<LogRecord> got = log.read(o, 1, 100).records();
          assertThat(got).as("offset " + o).hasSize(1);
          assertThat(got.get(0).offset()).isEqualTo(o);
          assertThat(value(got.get(0))).as("offset " + o).isEqualTo(expected);
        }
        assertThat(log.read(0, 1000, 1 << 20).records()).hasSize(n + 1 + more);
      }
    }
    DumpSummary s = LogDump.scan(dir, false, b -> { });
    assertThat(s.corrupt()).as(s.problems().toString()).isFalse();
    assertThat(s.records()).isEqualTo(n + 1 + more);
  }

  /**
   * In a container the dead broker and the new one are both PID 1: a stale lock looks held by a live
   * process (ourselves). Reproduced here by abandoning a lock under this JVM's own PID.
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aStaleLockUnderOurOwnPidIsClearedAtOpen() {
    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults())) {
      log.append(AppendBatch.of(List.of(record("before", T0)), T0));
    }
    net.openhft.chronicle.queue.impl.single.SingleChronicleQueue abandoned =
        net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder.binary(dir)
            .rollCycle(ChronicleRolls.of(SegmentRoll.HOUR)).build();
    abandoned.createAppender().writingDocument().wire().bytes().write(new byte[] {9, 9, 9});
    // Never closed: the write lock stays held by this PID, as after kill -9 of a PID-1 broker.

    long started = System.nanoTime();
    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults())) {
      assertThat(log.append(AppendBatch.of(List.of(record("after", T0)), T0)).baseOffset()).isEqualTo(1);
      assertThat(log.read(0, 10, 1000).records()).extracting(ChronicleLogTest::value).containsExactly("before", "after");
    }
    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).isLessThan(5);
  }

  @Test
  void flushForcesEverySegmentFileWrittenSinceTheLastFlushAndTheDirectoryForNewOnes() {
    ManualClock clock = new ManualClock(T0);
    try (ChronicleLog log = ChronicleLog.open(dir, new LogOptions(SegmentRoll.ONE_SECOND, clock, false))) {
      log.append(AppendBatch.of(List.of(record("a", T0)), T0));
      log.flush();
      assertThat(log.filesForced()).as("new segment: its file and the directory").isEqualTo(2);
      log.append(AppendBatch.of(List.of(record("b", T0)), T0));
      log.flush();
      assertThat(log.filesForced()).as("same segment: its file").isEqualTo(3);
      log.flush();
      assertThat(log.filesForced()).as("nothing appended: nothing to force").isEqualTo(3);
      log.append(AppendBatch.of(List.of(record("c", T0)), T0));
      clock.advance(1000);
      log.append(AppendBatch.of(List.of(record("d", T0)), T0)); // rolls: two files unflushed now
      log.flush();
      assertThat(log.filesForced()).as("both segments and the directory").isEqualTo(6);
    }
  }

  @Test
  void readsOfAClosedLogFailWithAStorageErrorNotAChronicleOne() {
    ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults());
    log.append(AppendBatch.of(List.of(record("x", T0)), T0));
    log.close();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> log.read(0, 10, 100))
        .isInstanceOf(StorageException.class).hasMessageContaining("closed");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> log.offsetForTimestamp(T0))
        .isInstanceOf(StorageException.class).hasMessageContaining("closed");
  }

  @Test
  void batchesOnBothSidesOfAMappedChunkBoundaryReadBackIntact() {
    // Chronicle maps a segment in 64 MiB chunks (ChronicleChunkSizeTest); 72 batches of 1 MiB cross one,
    // and reads copy each document out of mapped memory (MappedCopy) whichever chunk holds it.
    int size = 1 << 20;
    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults())) {
      for (int i = 0; i < 72; i++) {
        byte[] value = new byte[size];
        java.util.Arrays.fill(value, (byte) i);
        value[0] = (byte) (i >> 8);
        value[size - 1] = (byte) ~i;
        log.append(AppendBatch.of(List.of(LogRecord.of(null, value, -1, List.of())), T0));
      }
      for (int i = 0; i < 72; i++) {
        byte[] back = log.read(i, 1, size).records().get(0).value();
        assertThat(back).hasSize(size);
        assertThat(back[size / 2]).as("batch %d", i).isEqualTo((byte) i);
        assertThat(back[0]).isEqualTo((byte) (i >> 8));
        assertThat(back[size - 1]).isEqualTo((byte) ~i);
      }
      BatchReadResult raw = log.readBatches(60, 100, 20 * (size + 100), true);
      assertThat(raw.batches()).hasSize(12);
      byte[] last = raw.batches().get(11);
      assertThat(last[last.length - 2]).as("the value's last byte, before the header count").isEqualTo((byte) ~71);
    }
  }

  static LogRecord record(String value, long ts) {
    return LogRecord.of(null, value.getBytes(StandardCharsets.UTF_8), ts, List.of());
  }

  static String value(LogRecord r) {
    return new String(r.value(), StandardCharsets.UTF_8);
  }

  /** Cycle files (*.cq4) in the directory. */
  private List<Path> cycleFiles() throws java.io.IOException {
    try (var files = java.nio.file.Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".cq4")).sorted().toList();
    }
  }

  /** Lines of this process's memory map that name a file of {@code dir} the kernel says is deleted. */
  private List<String> deletedButMapped() throws java.io.IOException {
    return java.nio.file.Files.readAllLines(Path.of("/proc/self/maps")).stream()
        .filter(l -> l.contains(dir.toString()) && l.endsWith("(deleted)")).toList();
  }

  @Test
  void deletedSegmentsAreUnlinkedUnmappedAndStayDeletedAfterARestart() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.exists(Path.of("/proc/self/maps")),
        "needs Linux's /proc/self/maps to see what is mapped");
    ManualClock clock = new ManualClock(T0);
    LogOptions options = new LogOptions(SegmentRoll.ONE_SECOND, clock, true);
    try (ChronicleLog log = ChronicleLog.open(dir, options)) {
      for (int seg = 0; seg < 4; seg++) {
        for (int i = 0; i < 10; i++) {
          log.append(AppendBatch.of(List.of(record("s" + seg + "-" + i, T0)), clock.millis()));
        }
        clock.advance(1000);
      }
      // Readers have been through every segment, so pooled tailers hold old files mapped.
      for (long o = 0; o < 40; o += 3) {
        log.read(o, 2, 1000);
      }
      log.read(1, 2, 1000); // the pooled tailer now stands in the first segment

      List<Path> before = cycleFiles();
      assertThat(before).hasSize(4);
      assertThat(log.deleteOldestSegments(2)).isEqualTo(20);
      assertThat(cycleFiles()).containsExactlyElementsOf(before.subList(2, 4));
      assertThat(deletedButMapped()).as("deleted segment files still mapped").isEmpty();
      // The queue's own listing was refreshed: reads and appends across the rest still work.
      assertThat(value(log.read(20, 1, 100).records().get(0))).isEqualTo("s2-0");
      clock.advance(1000);
      log.append(AppendBatch.of(List.of(record("later", T0)), clock.millis()));
      assertThat(log.segments()).extracting(SegmentInfo::firstOffset).containsExactly(20L, 30L, 40L);
    }
    try (ChronicleLog log = ChronicleLog.open(dir, options)) {
      assertThat(log.startOffset()).isEqualTo(20);
      assertThat(log.endOffset()).isEqualTo(41);
      assertThat(value(log.read(20, 1, 100).records().get(0))).isEqualTo("s2-0");
      assertThatThrownBy(() -> log.read(19, 1, 100)).isInstanceOf(OffsetOutOfRangeException.class);
      assertThat(log.append(AppendBatch.of(List.of(record("next", T0)), clock.millis())).baseOffset()).isEqualTo(41);
    }
  }

  @Test
  void aSegmentRenamedButNotUnlinkedBeforeACrashIsRemovedAtOpen() throws Exception {
    ManualClock clock = new ManualClock(T0);
    LogOptions options = new LogOptions(SegmentRoll.ONE_SECOND, clock, true);
    try (ChronicleLog log = ChronicleLog.open(dir, options)) {
      log.append(AppendBatch.of(List.of(record("a", T0)), clock.millis()));
    }
    Path leftover = dir.resolve("20251122-000000T.cq4" + SegmentDeletion.DELETED_SUFFIX);
    java.nio.file.Files.write(leftover, new byte[4096]);
    try (ChronicleLog log = ChronicleLog.open(dir, options)) {
      assertThat(leftover).doesNotExist();
      assertThat(value(log.read(0, 1, 100).records().get(0))).isEqualTo("a");
    }
  }

  @Test
  // A separate thread: a regression stalls reads 10 s each, and the test must fail at the timeout, not hang.
  @Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void readersRacingDeletionsSeeRecordsOrOutOfRangeAndNoDeletedFileComesBack() throws Exception {
    ManualClock clock = new ManualClock(T0);
    LogOptions options = new LogOptions(SegmentRoll.ONE_SECOND, clock, true);
    try (ChronicleLog log = ChronicleLog.open(dir, options)) {
      java.util.Set<String> deleted = java.util.concurrent.ConcurrentHashMap.newKeySet();
      java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
      java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
      List<Thread> readers = new java.util.ArrayList<>();
      for (int t = 0; t < 3; t++) {
        Thread reader = new Thread(() -> {
          while (!stop.get()) {
            long start = log.startOffset();
            try {
              List<LogRecord> got = log.read(start, 5, 1000).records();
              if (!got.isEmpty() && got.get(0).offset() != start) {
                failure.compareAndSet(null, new AssertionError("read at " + start + " got " + got.get(0).offset()));
              }
            } catch (OffsetOutOfRangeException e) {
              // retention went past start meanwhile: what a reader is told
            } catch (Throwable e) {
              failure.compareAndSet(null, e);
            }
          }
        });
        reader.setDaemon(true);
        reader.start();
        readers.add(reader);
      }
      for (int round = 0; round < 150; round++) {
        for (int i = 0; i < 3; i++) {
          log.append(AppendBatch.of(List.of(record("r" + round + "-" + i, T0)), clock.millis()));
        }
        clock.advance(1000);
        if (round > 0) {
          java.util.Set<Path> before = new java.util.HashSet<>(cycleFiles());
          log.deleteOldestSegments(1);
          before.removeAll(cycleFiles());
          before.forEach(f -> deleted.add(f.getFileName().toString()));
        }
      }
      stop.set(true);
      for (Thread r : readers) {
        r.join();
      }
      assertThat(failure.get()).isNull();
      assertThat(deleted).hasSize(149);
      // A tailer that mapped a file as it was unlinked creates it again, empty, waits for its header and
      // then renames it *.discard: no trace of a deleted segment may remain under any name.
      try (var files = java.nio.file.Files.list(dir)) {
        assertThat(files.map(f -> f.getFileName().toString()))
            .noneMatch(name -> deleted.stream().anyMatch(name::startsWith));
      }
    }
  }
}
