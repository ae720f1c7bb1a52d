package io.brook.broker.storage;

import io.brook.broker.records.LogRecord;
import io.brook.broker.records.RecordHeader;
import io.brook.broker.records.EncodedRecords;
import io.brook.broker.records.ProducerStamp;
import io.brook.broker.storage.chronicle.ChronicleLog;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** What every PartitionLog must do, run against the Chronicle and the in-memory implementation. */
class PartitionLogContractTest {
  static final long T0 = 1_763_800_000_000L;

  @TempDir Path dir;
  final ManualClock clock = new ManualClock(T0);
  final List<PartitionLog> opened = new ArrayList<>();

  static Stream<String> implementations() {
    return Stream.of("chronicle", "memory");
  }

  PartitionLog open(String impl) {
    LogOptions options = new LogOptions(SegmentRoll.ONE_SECOND, clock, true);
    Function<LogOptions, PartitionLog> factory = impl.equals("chronicle")
        ? o -> ChronicleLog.open(dir.resolve("p0"), o)
        : MemoryLog::new;
    PartitionLog log = factory.apply(options);
    opened.add(log);
    return log;
  }

  @AfterEach
  void closeAll() {
    opened.forEach(PartitionLog::close);
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static LogRecord rec(String key, String value, long ts) {
    return LogRecord.of(key == null ? null : bytes(key), bytes(value), ts, List.of());
  }

  @ParameterizedTest
  @MethodSource("implementations")
  void emptyLogStartsAtZero(String impl) {
    PartitionLog log = open(impl);
    assertThat(log.startOffset()).isZero();
    assertThat(log.endOffset()).isZero();
    assertThat(log.sizeBytes()).isZero();
    assertThat(log.read(0, 10, 1000).records()).isEmpty();
    assertThat(log.offsetForTimestamp(0)).isZero();
  }

  @ParameterizedTest
  @MethodSource("implementations")
  void roundTripsKeysValuesHeadersAndTimestamps(String impl) {
    PartitionLog log = open(impl);
    List<RecordHeader> headers = List.of(RecordHeader.of("h", bytes("1")), RecordHeader.of("h", bytes("2")),
        RecordHeader.of("\u00e9t\u00e9", new byte[0]));
    AppendResult first = log.append(AppendBatch.of(List.of(
        LogRecord.of(null, bytes("no key"), T0 - 5000, List.of()),
        LogRecord.of(new byte[0], bytes("empty key"), -1, headers),
        LogRecord.of(bytes("k"), new byte[0], T0 + 7, List.of())), T0));
    assertThat(first.baseOffset()).isZero();
    assertThat(first.recordCount()).isEqualTo(3);
    AppendResult second = log.append(AppendBatch.of(List.of(rec("k2", "v", 1)), T0 + 1));
    assertThat(second.baseOffset()).isEqualTo(3);

    List<LogRecord> all = log.read(0, 100, 1 << 20).records();
    assertThat(all).extracting(LogRecord::offset).containsExactly(0L, 1L, 2L, 3L);
    assertThat(all.get(0).key()).isNull();
    assertThat(all.get(0).timestamp()).isEqualTo(T0 - 5000);
    assertThat(all.get(1).key()).isEmpty();
    assertThat(all.get(1).timestamp()).as("absent timestamp is the append time").isEqualTo(T0);
    assertThat(all.get(1).headers()).extracting(RecordHeader::name).containsExactly("h", "h", "\u00e9t\u00e9");
    assertThat(all.get(1).headers().get(1).value()).isEqualTo(bytes("2"));
    assertThat(all.get(2).value()).isEmpty();
    assertThat(all.get(2).timestamp()).isEqualTo(T0 + 7);
    assertThat(new String(all.get(3).value(), StandardCharsets.UTF_8)).isEqualTo("v");
    assertThat(log.endOffset()).isEqualTo(4);
  }

  @ParameterizedTest
  @MethodSource("implementations")
  void readsFromInsideABatchAndHonoursLimits(String impl) {
    PartitionLog log = open(impl);
    for (int b = 0; b < 10; b++) {
      List<LogRecord> batch = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        batch.add(rec(null, "value-" + (b * 10 + i), T0));
      }
      log.append(AppendBatch.of(batch, T0));
    }
    ReadResult mid = log.read(37, 5, 1 << 20);
    assertThat(mid.records()).extracting(LogRecord::offset).containsExactly(37L, 38L, 39L, 40L, 41L);
    assertThat(mid.nextOffset()).isEqualTo(42);
    assertThat(new String(mid.records().get(0).value(), StandardCharsets.UTF_8)).isEqualTo("value-37");

    ReadResult byBytes = log.read(0, 1000, 20); // each value is 7 or 8 bytes
    assertThat(byBytes.records()).hasSize(2);
    ReadResult oneEvenIfLarger = log.read(5, 1000, 1);
    assertThat(oneEvenIfLarger.records()).hasSize(1);
    assertThat(oneEvenIfLarger.nextOffset()).isEqualTo(6);

    ReadResult rest = log.read(90, 1000, 1 << 20);
    assertThat(rest.records()).hasSize(10);
    assertThat(rest.nextOffset()).isEqualTo(100);
    assertThat(log.read(100, 10, 100).records()).isEmpty();
  }

  @ParameterizedTest
  @MethodSource("implementations")
  void outOfRangeOffsetsNameTheValidRange(String impl) {
    PartitionLog log = open(impl);
    log.append(AppendBatch.of(List.of(rec(null, "a", T0), rec(null, "b", T0)), T0));
    assertThatThrownBy(() -> log.read(3, 10, 100))
        .isInstanceOf(OffsetOutOfRangeException.class)
        .hasMessageContaining("offset 3")
        .hasMessageContaining("0 to 2");
    assertThatThrownBy(() -> log.read(-1, 10, 100)).isInstanceOf(OffsetOutOfRangeException.class);
  }

  @ParameterizedTest
  @MethodSource("implementations")
  void offsetsStayContiguousAcrossManySegments(String impl) {
    PartitionLog log = open(impl);
    Random random = new Random(7);
    long expected = 0;
    for (int b = 0; b < 200; b++) {
      int n = 1 + random.nextInt(20);
      List<LogRecord> batch = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        batch.add(rec("k" + (expected + i), "v" + (expected + i), T0));
      }
      assertThat(log.append(AppendBatch.of(batch, clock.millis())).baseOffset()).isEqualTo(expected);
      expected += n;
      if (b % 10 == 9) {
        clock.advance(1000); // next segment
      }
    }
    assertThat(log.segmentCount()).isEqualTo(20);
    assertThat(log.endOffset()).isEqualTo(expected);
    // Every offset can be read directly, and a full scan sees each once in order.
    for (long o = 0; o < expected; o += 1 + random.nextInt(7)) {
      LogRecord r = log.read(o, 1, 1 << 20).records().get(0);
      assertThat(r.offset()).isEqualTo(o);
      assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo("v" + o);
    }
    long next = 0;
    while (next < expected) {
      ReadResult rr = log.read(next, 33, 1 << 20);
      for (LogRecord r : rr.records()) {
        assertThat(r.offset()).isEqualTo(next++);
      }
    }
  }

  @ParameterizedTest
  @MethodSource("implementations")
  void offsetForTimestampMatchesABruteForceScanWithUnorderedTimestamps(String impl) {
    PartitionLog log = open(impl);
    Random random = new Random(11);
    List<Long> timestamps = new ArrayList<>();
    for (int b = 0; b < 120; b++) {
      List<LogRecord> batch = new ArrayList<>();
      for (int i = 0; i < 1 + random.nextInt(5); i++) {
        long ts = T0 + b * 100L + random.nextInt(1000) - 500; // producer clocks disagree
        timestamps.add(ts);
        batch.add(rec(null, "x", ts));
      }
      log.append(AppendBatch.of(batch, clock.millis()));
      if (b % 15 == 14) {
        clock.advance(1000);
      }
    }
    for (long target = T0 - 700; target < T0 + 13_000; target += 37) {
      long expected = timestamps.size();
      for (int o = 0; o < timestamps.size(); o++) {
        if (timestamps.get(o) >= target) {
          expected = o;
          break;
        }
      }
      assertThat(log.offsetForTimestamp(target)).as("target %d", target).isEqualTo(expected);
    }
  }

  /**
   * After retention deleted the oldest segments, the running max timestamps the kept batches carry
   * still count the deleted records: a batch can reach a target only through them. The answer must
   * still be the first kept record at or after the target, never the end.
   */
  @ParameterizedTest
  @MethodSource("implementations")
  void offsetForTimestampAfterRetentionMatchesABruteForceScanOfTheKeptRecords(String impl) {
    PartitionLog log = open(impl);
    List<Long> timestamps = new ArrayList<>();
    for (int b = 0; b < 60; b++) {
      List<LogRecord> batch = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        // The first segment holds one record far ahead of every later one.
        long ts = b == 0 && i == 0 ? T0 + 50_000 : T0 + b * 100L + i;
        timestamps.add(ts);
        batch.add(rec(null, "x", ts));
      }
      log.append(AppendBatch.of(batch, clock.millis()));
      if (b % 15 == 14) {
        clock.advance(1000);
      }
    }
    long start = log.deleteOldestSegments(1);
    assertThat(start).isEqualTo(45);
    for (long target = T0; target < T0 + 51_000; target += 37) {
      long expected = timestamps.size();
      for (int o = (int) start; o < timestamps.size(); o++) {
        if (timestamps.get(o) >= target) {
          expected = o;
          break;
        }
      }
      assertThat(log.offsetForTimestamp(target)).as("target %d", target).isEqualTo(expected);
    }
  }

  @ParameterizedTest
  @MethodSource("implementations")
  void logAppendTimeStampsEveryRecord(String impl) {
    PartitionLog log = open(impl);
    log.append(new AppendBatch(List.of(rec(null, "a", 5), rec(null, "b", 6)), T0 + 42, true, ProducerStamp.NONE));
    assertThat(log.read(0, 10, 1000).records()).extracting(LogRecord::timestamp).containsExactly(T0 + 42, T0 + 42);
    assertThat(log.offsetForTimestamp(T0 + 42)).isZero();
    assertThat(log.offsetForTimestamp(T0 + 43)).isEqualTo(2);
  }

  @ParameterizedTest
  @MethodSource("implementations")
  void sizeCountsBytesWrittenNotFileLengths(String impl) {
    PartitionLog log = open(impl);
    log.append(AppendBatch.of(List.of(rec(null, "x".repeat(1000), T0)), T0));
    long one = log.sizeBytes();
    assertThat(one).isBetween(1000L, 1200L);
    log.append(AppendBatch.of(List.of(rec(null, "x".repeat(1000), T0)), T0));
    assertThat(log.sizeBytes()).isEqualTo(2 * one);
  }

  @ParameterizedTest
  @MethodSource("implementations")
  void readersRunConcurrentlyWithTheWriter(String impl) throws Exception {
    PartitionLog log = open(impl);
    int total = 20_000;
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread reader = new Thread(() -> {
      try {
        long next = 0;
        while (next < total) {
          for (LogRecord r : log.read(next, 500, 1 << 20).records()) {
            if (r.offset() != next || !new String(r.value(), StandardCharsets.UTF_8).equals("v" + next)) {
              throw new AssertionError("expected offset " + next + " got " + r.offset());
            }
            next++;
          }
        }
      } catch (Throwable t) {
        failure.set(t);
      }
    });
    reader.start();
    for (int i = 0; i < total; i += 10) {
      List<LogRecord> batch = new ArrayList<>();
      for (int j = i; j < i + 10; j++) {
        batch.add(rec(null, "v" + j, T0));
      }
      log.append(AppendBatch.of(batch, clock.millis()));
      if (i % 5000 == 0) {
        clock.advance(1000);
      }
    }
    reader.join(30_000);
    assertThat(reader.isAlive()).isFalse();
    assertThat(failure.get()).isNull();
  }

  /** Five segments of 3 batches of 2 records, one second apart; returns the log. */
  PartitionLog fiveSegments(String impl) {
    PartitionLog log = open(impl);
    for (int seg = 0; seg < 5; seg++) {
      for (int b = 0; b < 3; b++) {
        log.append(AppendBatch.of(List.of(rec(null, "s" + seg + "b" + b + "r0", T0), rec(null, "s" + seg + "b" + b + "r1", T0)),
            clock.millis()));
        clock.advance(100);
      }
      clock.advance(1000 - 300);
    }
    return log;
  }

  @ParameterizedTest
  @MethodSource("implementations")
  void segmentsListOffsetsSizesAndTheLastAppendTimeOfEach(String impl) {
    PartitionLog log = fiveSegments(impl);
    List<SegmentInfo> segments = log.segments();
    assertThat(segments).hasSize(5);
    for (int i = 0; i < 5; i++) {
      SegmentInfo s = segments.get(i);
      assertThat(s.firstOffset()).isEqualTo(6L * i);
      assertThat(s.endOffset()).isEqualTo(6L * i + 6);
      assertThat(s.lastAppendTimeMs()).isEqualTo(T0 + 1000L * i + 200);
      assertThat(s.sizeBytes()).isPositive();
    }
    assertThat(segments.stream().mapToLong(SegmentInfo::sizeBytes).sum()).isEqualTo(log.sizeBytes());
  }

  @ParameterizedTest
  @MethodSource("implementations")
  void deletingTheOldestSegmentsAdvancesTheStartAndNeverTouchesTheLast(String impl) {
    PartitionLog log = fiveSegments(impl);
    long sizeBefore = log.sizeBytes();
    long firstSize = log.segments().get(0).sizeBytes();
    assertThat(log.deleteOldestSegments(1)).isEqualTo(6);
    assertThat(log.startOffset()).isEqualTo(6);
    assertThat(log.sizeBytes()).isEqualTo(sizeBefore - firstSize);
    assertThatThrownBy(() -> log.read(5, 1, 1000)).isInstanceOf(OffsetOutOfRangeException.class)
        .hasMessageContaining("valid offsets are 6 to 30");
    assertThat(log.read(6, 1, 1000).records().get(0).value()).isEqualTo(bytes("s1b0r0"));
    // Asking for everything leaves the segment being written.
    assertThat(log.deleteOldestSegments(100)).isEqualTo(24);
    assertThat(log.segments()).extracting(SegmentInfo::firstOffset).containsExactly(24L);
    assertThat(log.offsetForTimestamp(T0)).isEqualTo(24);
    List<Long> seen = new ArrayList<>();
    log.forEachBatch(0, b -> seen.add(b.baseOffset()));
    assertThat(seen).containsExactly(24L, 26L, 28L);
    // Appends go on at the end, offsets never renumbered.
    assertThat(log.append(AppendBatch.of(List.of(rec(null, "after", T0)), clock.millis())).baseOffset()).isEqualTo(30);
    assertThat(log.read(30, 1, 1000).records().get(0).value()).isEqualTo(bytes("after"));
    assertThat(log.deleteOldestSegments(0)).isEqualTo(24);
  }

  @ParameterizedTest
  @MethodSource("implementations")
  void rawBatchReadsReturnWholeStoredBatchesThatDecodeToTheSameRecords(String impl) {
    PartitionLog log = fiveSegments(impl);
    BatchReadResult all = log.readBatches(3, 1000, 1 << 20, true);
    assertThat(all.nextOffset()).isEqualTo(30);
    assertThat(all.batches()).hasSize(14); // from the batch [2, 4) to the end, across five segments
    assertThat(all.bytes()).isEqualTo(all.batches().stream().mapToInt(b -> b.length).sum());
    List<String> expected = new ArrayList<>();
    log.read(3, 1000, 1 << 20).records().forEach(r -> expected.add(new String(r.value(), StandardCharsets.UTF_8)));
    assertThat(expected).hasSize(27);
    assertThat(decode(all, 3)).isEqualTo(expected);
  }

  @ParameterizedTest
  @MethodSource("implementations")
  void rawBatchReadsStopAtBatchBoundariesByRecordsAndBytes(String impl) {
    PartitionLog log = fiveSegments(impl);
    int one = log.readBatches(0, 1, 1 << 20, true).batches().get(0).length;
    // Records count from the offset asked for: [0, 2) gives one, [2, 4) makes it three.
    BatchReadResult byRecords = log.readBatches(1, 2, 1 << 20, true);
    assertThat(byRecords.batches()).hasSize(2);
    assertThat(byRecords.nextOffset()).isEqualTo(4);

    BatchReadResult byBytes = log.readBatches(0, 1000, 2 * one + one / 2, true);
    assertThat(byBytes.batches()).hasSize(2);
    assertThat(byBytes.nextOffset()).isEqualTo(4);
    assertThat(log.readBatches(0, 1000, 1, true).batches()).hasSize(1); // the first whatever its size
    BatchReadResult none = log.readBatches(0, 1000, one - 1, false);
    assertThat(none.batches()).isEmpty();
    assertThat(none.nextOffset()).isZero();

    // Reading on where a limited read stopped, and mixing record and raw reads, loses nothing.
    assertThat(decode(log.readBatches(byBytes.nextOffset(), 1, 1 << 20, true), 4)).containsExactly("s0b2r0", "s0b2r1");
    assertThat(log.read(6, 1, 1 << 20).records().get(0).value()).isEqualTo(bytes("s1b0r0"));
    assertThat(decode(log.readBatches(7, 1, 1 << 20, true), 7)).containsExactly("s1b0r1");
    assertThat(log.read(8, 1, 1 << 20).records().get(0).value()).isEqualTo(bytes("s1b1r0"));

    assertThat(log.readBatches(30, 10, 1000, true).batches()).isEmpty();
    assertThatThrownBy(() -> log.readBatches(31, 10, 1000, true)).isInstanceOf(OffsetOutOfRangeException.class);
  }

  @ParameterizedTest
  @MethodSource("implementations")
  void encodedRecordsAreStoredInVersion2AndReadBackLikeListedOnes(String impl) {
    PartitionLog log = open(impl);
    List<RecordHeader> headers = List.of(RecordHeader.of("h", bytes("1")), RecordHeader.of("\u00e9t\u00e9", new byte[0]));
    List<LogRecord> records = List.of(
        LogRecord.of(null, bytes("no key"), T0 - 5000, List.of()),
        LogRecord.of(new byte[0], bytes("empty key"), T0 + 9, headers),
        LogRecord.of(bytes("k"), new byte[0], T0 + 7, List.of()));
    log.append(AppendBatch.of(records, T0));
    // The section as Brook's producer sends it (version 1 records), inside a larger array as a
    // parsed request holds it.
    ByteWriter v1 = new ByteWriter(256);
    Version1Encoder.encode(v1, AppendBatch.of(records, T0), 0, Long.MIN_VALUE, 0, new java.util.zip.CRC32C());
    int headerSize = io.brook.protocol.batch.BatchFormat.headerSize(v1.array(), 0);
    int sectionLength = v1.position() - headerSize;
    byte[] request = new byte[sectionLength + 20];
    System.arraycopy(v1.array(), headerSize, request, 7, sectionLength);
    EncodedRecords encoded = new EncodedRecords(request, 7, sectionLength, 3, T0 - 5000, T0 + 9, 0);

    AppendResult r = log.append(AppendBatch.encoded(encoded, T0 + 100, false, new ProducerStamp(5, (short) 1, 0)));
    assertThat(r.baseOffset()).isEqualTo(3);
    assertThat(r.recordCount()).isEqualTo(3);
    assertThat(r.appendTimeMs()).isEqualTo(T0 + 100);
    log.append(AppendBatch.encoded(encoded, T0 + 200, true, ProducerStamp.NONE));

    byte[] listed = log.readBatches(0, 3, 1 << 20, true).batches().get(0);
    byte[] stored = log.readBatches(3, 3, 1 << 20, true).batches().get(0);
    assertThat(io.brook.protocol.batch.BatchFormat.version(stored, 0)).isEqualTo(io.brook.protocol.batch.BatchFormat.VERSION_2);
    // re-encoded once into the Kafka batch the listed records make: the same records from the same offset delta on
    int kafkaRecords = io.brook.protocol.batch.BatchFormat.V2_PREFIX_SIZE + io.brook.protocol.batch.KafkaBatch.HEADER_SIZE;
    assertThat(java.util.Arrays.copyOfRange(stored, kafkaRecords, stored.length))
        .isEqualTo(java.util.Arrays.copyOfRange(listed, kafkaRecords, listed.length));
    assertThat(io.brook.protocol.batch.BatchFormat.checksumMatches(stored, 0, stored.length,
        new java.util.zip.CRC32C())).isTrue();
    assertThat(BatchCodec.producer(stored, 0)).isEqualTo(new ProducerStamp(5, (short) 1, 0));

    List<LogRecord> all = log.read(0, 100, 1 << 20).records();
    assertThat(all).extracting(LogRecord::offset).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
    for (int i = 0; i < 3; i++) {
      LogRecord a = all.get(i);
      LogRecord b = all.get(i + 3);
      assertThat(b.key()).isEqualTo(a.key());
      assertThat(b.value()).isEqualTo(a.value());
      assertThat(b.timestamp()).isEqualTo(a.timestamp());
      assertThat(b.headers()).extracting(RecordHeader::name).isEqualTo(a.headers().stream().map(RecordHeader::name).toList());
    }
    assertThat(all.subList(6, 9)).extracting(LogRecord::timestamp).containsOnly(T0 + 200); // LogAppendTime
    // The time index counts the encoded batches' timestamps: T0 + 9 is in the first and the second.
    assertThat(log.offsetForTimestamp(T0 + 9)).isEqualTo(1);
    assertThat(log.offsetForTimestamp(T0 + 10)).isEqualTo(6);
    assertThat(log.offsetForTimestamp(T0 + 201)).isEqualTo(9);
    assertThat(request[6]).isZero(); // the request's memory is read, never written
  }

  /** The values of the records at or after {@code from} in raw batches, as a client reads them. */
  static List<String> decode(BatchReadResult result, long from) {
    io.brook.protocol.batch.BatchReader reader = new io.brook.protocol.batch.BatchReader();
    List<String> out = new ArrayList<>();
    for (byte[] batch : result.batches()) {
      reader.wrap(batch, 0, batch.length).skipTo(from);
      while (reader.next()) {
        out.add(new String(reader.copyValue(), StandardCharsets.UTF_8));
      }
    }
    return out;
  }
}
