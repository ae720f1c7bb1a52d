package io.brook.client.producer;

import io.brook.client.Header;
import io.brook.client.TopicPartition;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.batch.Compression;
import io.brook.protocol.v1.Durability;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceStreamRequest;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The Java client's produce encoding (JMH), in the client's own producer package because its
 * encoders are package-private. perf/run-micro-bench.sh runs it from brook-perf.jar (the perf module
 * bundles client-java's benchmarks jar) beside io.brook.perf.CodecBenchmark, whose
 * {@code kafkaEncode} is its peer: same records ({@code batchSize} records of {@code recordSize}
 * random value bytes, no key, no headers, one timestamp), same JMH settings as perf's
 * MicroBenchmark.
 *
 * <p>{@code brookClientEncode}: record by record into the batch's Kafka record batch v2 (ProducerBatch,
 * as {@code send}; uncompressed), then its CRC-32C and the ProduceStreamRequest framed around it
 * (ProduceRequestEncoding, as the sender): one new request byte[] per call. No futures, buffer
 * accounting, locks or producer id.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class ClientCodecBenchmark {
  private static final TopicPartition TP = new TopicPartition("bench", 0);
  private static final List<Header> NO_HEADERS = List.of();

  @Param({"100", "1024"})
  public int recordSize;

  @Param({"1", "100"})
  public int batchSize;

  private long timestamp;
  private byte[][] values;
  private long correlationId;
  private final CRC32C crc = new CRC32C();

  /** Records per second, the secondary metric {@code records} that perf/micro_table.py reads. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Records {
    public long records;

    @Setup(Level.Iteration)
    public void reset() {
      records = 0;
    }
  }

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    SplittableRandom random = new SplittableRandom(42);
    timestamp = System.currentTimeMillis();
    values = new byte[batchSize][];
    for (int i = 0; i < batchSize; i++) {
      values[i] = new byte[recordSize];
      random.nextBytes(values[i]);
    }

    // The request must decode to the records, so a broken encoding cannot produce a figure.
    ProduceBatch sent = ProduceStreamRequest.parseFrom(encode(1)).getRequest().getBatches(0);
    byte[] batch = sent.getKafkaBatch().toByteArray();
    BatchReader records = new BatchReader().wrapKafka(batch, 0, batch.length);
    for (int i = 0; i < batchSize; i++) {
      check(records.next() && Arrays.equals(records.copyValue(), values[i]) && records.timestamp() == timestamp,
          "client record " + i + " differs");
    }
    check(!records.next(), "the client encoded more than " + batchSize + " records");
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException(what);
    }
  }

  /**
   * One batch's records into its Kafka batch, then one request around it. Not idempotent (no
   * producer id).
   */
  private byte[] encode(long correlation) {
    ProducerBatch batch = new ProducerBatch(TP, 0L, Compression.NONE, values.length);
    for (byte[] v : values) {
      batch.add(null, v, NO_HEADERS, timestamp, new CompletableFuture<>());
    }
    return ProduceRequestEncoding.encode(correlation, Durability.DURABILITY_WRITTEN, -1, -1, List.of(batch), false,
        crc);
  }

  @Benchmark
  public void brookClientEncode(Records counter, Blackhole bh) {
    bh.consume(encode(++correlationId));
    counter.records += batchSize;
  }
}
