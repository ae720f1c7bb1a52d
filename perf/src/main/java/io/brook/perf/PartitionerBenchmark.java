package io.brook.perf;

import io.brook.protocol.Partitioner;
import java.util.SplittableRandom;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The keyed partitioner: Brook's {@code Partitioner.partitionForKey(byte[], int)} against Kafka's
 * {@code BuiltInPartitioner.partitionForKey(byte[], int)} (kafka-clients 4.3.1, what its producer
 * calls for a keyed record: {@code toPositive(murmur2(key)) % partitions}).
 *
 * <p>Each call hashes the next of {@value #KEYS} random keys of {@code keySize} bytes prepared in
 * set-up (cycling, so no key's hash can be folded or predicted), for {@code partitions} partitions.
 * One call is one key: the score is keys per second.
 */
@State(Scope.Thread)
public class PartitionerBenchmark extends MicroBenchmark {
  private static final int KEYS = 1024; // a power of two: the next key is an AND, not a division

  @Param({"8", "36", "128"})
  public int keySize;

  /** Not a constant, so the modulo stays a division, as with a topic's partition count. */
  public int partitions = 12;

  private byte[][] keys;
  private int next;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    keys = new byte[KEYS][keySize];
    for (byte[] k : keys) {
      random.nextBytes(k);
      // Same partitions or no figure: Brook must choose exactly as Kafka does.
      if (Partitioner.partitionForKey(k, partitions) != BuiltInPartitioner.partitionForKey(k, partitions)) {
        throw new IllegalStateException("Brook and Kafka disagree on a key of " + keySize + " bytes");
      }
    }
  }

  @Benchmark
  public void brookPartition(Blackhole bh) {
    bh.consume(Partitioner.partitionForKey(keys[next++ & (KEYS - 1)], partitions));
  }

  @Benchmark
  public void kafkaPartition(Blackhole bh) {
    bh.consume(BuiltInPartitioner.partitionForKey(keys[next++ & (KEYS - 1)], partitions));
  }
}
