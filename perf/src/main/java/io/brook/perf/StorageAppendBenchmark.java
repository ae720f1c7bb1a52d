package io.brook.perf;

import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.AppendResult;
import io.brook.broker.storage.chronicle.ChronicleLog;
import io.brook.broker.storage.LogOptions;
import io.brook.broker.records.LogRecord;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * Append throughput of Brook's storage layer against raw Chronicle Queue, same payloads, same run.
 *
 * <ul>
 *   <li>{@code brookAppend}: one {@link ChronicleLog#append(AppendBatch)} of a prebuilt batch of
 *       {@code batchSize} records of {@code recordSize} value bytes (no key, no headers): encoding,
 *       CRC32C and one Chronicle document per batch.
 *   <li>{@code rawAppend}: {@code batchSize} Chronicle documents, one per record, each
 *       {@code appender.writingDocument()} + {@code bytes.write(payload)} of the same payload bytes.
 * </ul>
 *
 * <p>The primary score is invocations (batches) per second; the secondary metric {@code records}
 * (an {@link AuxCounters} counter) is records per second, which is what compares across batch sizes.
 * Each trial opens a fresh queue in a new temporary directory (deleted at tear-down), with the
 * default roll (SegmentRoll.HOUR = RollCycles.FAST_HOURLY). With {@code -Dbrook.bench.dirPer=iteration}
 * every iteration gets its own fresh directory instead (see {@link BenchDirs}).
 */
@State(Scope.Thread)
public class StorageAppendBenchmark extends ChronicleBenchmark {

  @Param({"100", "1024"})
  public int recordSize;

  @Param({"1", "100"})
  public int batchSize;

  private boolean brook;
  private Path dir;
  private ChronicleLog log;
  private AppendBatch batch;
  private SingleChronicleQueue queue;
  private ExcerptAppender appender;
  private byte[][] payloads;

  @Setup(Level.Trial)
  public void setUp(BenchmarkParams params) {
    SplittableRandom random = new SplittableRandom(42);
    payloads = new byte[batchSize][];
    List<LogRecord> records = new ArrayList<>(batchSize);
    long now = System.currentTimeMillis();
    for (int i = 0; i < batchSize; i++) {
      byte[] value = new byte[recordSize];
      random.nextBytes(value);
      payloads[i] = value;
      records.add(LogRecord.of(null, value, now, List.of()));
    }
    batch = AppendBatch.of(records, now);

    brook = params.getBenchmark().endsWith(".brookAppend");
    if (!BenchDirs.perIteration()) {
      open();
    }
  }

  @Setup(Level.Iteration)
  public void setUpIteration() {
    if (BenchDirs.perIteration()) {
      open();
    }
  }

  @TearDown(Level.Iteration)
  public void tearDownIteration() {
    if (BenchDirs.perIteration()) {
      close();
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    close();
  }

  private void open() {
    dir = BenchDirs.create("brook-append-");
    if (brook) {
      log = ChronicleLog.open(dir, LogOptions.defaults());
    } else {
      queue = SingleChronicleQueueBuilder.binary(dir).rollCycle(RollCycles.FAST_HOURLY).build();
      appender = queue.createAppender();
    }
  }

  private void close() {
    if (log != null) {
      log.close();
      log = null;
    }
    if (appender != null) {
      appender.close();
      appender = null;
    }
    if (queue != null) {
      queue.close();
      queue = null;
    }
    BenchDirs.delete(dir);
    dir = null;
  }

  @Benchmark
  public AppendResult brookAppend(RecordCounter counter) {
    AppendResult result = log.append(batch);
    counter.records += batchSize;
    return result;
  }

  @Benchmark
  public long rawAppend(RecordCounter counter) {
    byte[][] p = payloads;
    for (int i = 0; i < p.length; i++) {
      try (DocumentContext dc = appender.writingDocument()) {
        dc.wire().bytes().write(p[i]);
      }
    }
    counter.records += p.length;
    return appender.lastIndexAppended();
  }
}
