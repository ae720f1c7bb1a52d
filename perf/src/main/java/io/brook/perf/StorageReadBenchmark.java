package io.brook.perf;

import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.chronicle.ChronicleLog;
import io.brook.broker.storage.LogOptions;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.ReadResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Sequential read throughput (records per second) of Brook's storage layer against a raw Chronicle
 * tailer, over logs pre-filled in the trial set-up with {@value #RECORDS} records of
 * {@code recordSize} value bytes.
 *
 * <ul>
 *   <li>{@code brookRead}: {@code ChronicleLog.read(offset, 500, 1 MiB)} over a log written in
 *       batches of {@value #WRITE_BATCH}; the next read starts at the returned next offset, and at
 *       offset 0 again after the end. Each call returns exactly 500 records (the record count is a
 *       multiple of 500, and 500 × recordSize is far below 1 MiB), so an invocation is 500 operations.
 *   <li>{@code rawRead}: 500 {@code tailer.readingDocument()} per invocation over a queue of one
 *       document per record, copying each payload into a reused buffer; {@code toStart()} at the end.
 * </ul>
 */
@State(Scope.Thread)
public class StorageReadBenchmark extends ChronicleBenchmark {
  static final int RECORDS = 1_000_000;
  static final int WRITE_BATCH = 100;
  static final int MAX_RECORDS = 500;
  static final int MAX_BYTES = 1 << 20;

  @Param({"100"})
  public int recordSize;

  private Path dir;
  private ChronicleLog log;
  private long offset;
  private SingleChronicleQueue queue;
  private ExcerptTailer tailer;
  private byte[] buf;

  @Setup(Level.Trial)
  public void setUp(BenchmarkParams params) {
    SplittableRandom random = new SplittableRandom(42);
    byte[][] payloads = new byte[WRITE_BATCH][];
    for (int i = 0; i < WRITE_BATCH; i++) {
      payloads[i] = new byte[recordSize];
      random.nextBytes(payloads[i]);
    }
    buf = new byte[Math.max(recordSize, 64 * 1024)];
    dir = BenchDirs.create("brook-read-");
    if (params.getBenchmark().endsWith(".brookRead")) {
      log = ChronicleLog.open(dir, LogOptions.defaults());
      long now = System.currentTimeMillis();
      List<LogRecord> records = new ArrayList<>(WRITE_BATCH);
      for (byte[] p : payloads) {
        records.add(LogRecord.of(null, p, now, List.of()));
      }
      AppendBatch batch = AppendBatch.of(records, now);
      for (int i = 0; i < RECORDS / WRITE_BATCH; i++) {
        log.append(batch);
      }
      if (log.endOffset() != RECORDS) {
        throw new IllegalStateException("pre-fill wrote " + log.endOffset() + " records");
      }
      ReadResult first = log.read(0, MAX_RECORDS, MAX_BYTES);
      if (first.records().size() != MAX_RECORDS) {
        throw new IllegalStateException("a read returned " + first.records().size() + " records, not " + MAX_RECORDS);
      }
      offset = 0;
    } else {
      queue = SingleChronicleQueueBuilder.binary(dir).rollCycle(RollCycles.FAST_HOURLY).build();
      try (ExcerptAppender appender = queue.createAppender()) {
        for (int i = 0; i < RECORDS; i++) {
          try (DocumentContext dc = appender.writingDocument()) {
            dc.wire().bytes().write(payloads[i % WRITE_BATCH]);
          }
        }
      }
      tailer = queue.createTailer();
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (log != null) {
      log.close();
      log = null;
    }
    if (tailer != null) {
      tailer.close();
      tailer = null;
    }
    if (queue != null) {
      queue.close();
      queue = null;
    }
    BenchDirs.delete(dir);
  }

  @Benchmark
  @OperationsPerInvocation(MAX_RECORDS)
  public ReadResult brookRead() {
    ReadResult result = log.read(offset, MAX_RECORDS, MAX_BYTES);
    long next = result.nextOffset();
    offset = next >= RECORDS ? 0 : next;
    return result;
  }

  @Benchmark
  @OperationsPerInvocation(MAX_RECORDS)
  public void rawRead(Blackhole bh) {
    byte[] b = buf;
    for (int i = 0; i < MAX_RECORDS; ) {
      try (DocumentContext dc = tailer.readingDocument()) {
        if (!dc.isPresent()) {
          tailer.toStart();
          continue;
        }
        Bytes<?> bytes = dc.wire().bytes();
        int length = (int) bytes.readRemaining();
        bytes.read(b, 0, length);
        bh.consume(b[length - 1]);
      }
      i++;
    }
  }
}
