package io.brook.client.producer;

/**
 * Chooses the partition of each record sent without one ({@link ProducerConfig.Builder#partitioner},
 * Kafka's {@code partitioner.class}). A record that names its partition goes there without asking.
 * Without a partitioner the producer sends a keyed record to {@link #partitionForKey} and spreads
 * keyless records a batch at a time (sticky), as Kafka's does.
 *
 * <p>Called on the thread that calls {@code send}, from any number of threads at once: keep it
 * quick and thread-safe. An exception it throws is thrown by {@code send}; a partition outside
 * {@code [0, partitions)} fails the record's future with UnknownPartitionException.
 */
@FunctionalInterface
public interface Partitioner {
  /**
   * The record's partition.
   *
   * @param topic the record's topic
   * @param key the serialized key; null when the record has none
   * @param value the serialized value; null when the record has none
   * @param partitions how many partitions the topic has (at least 1)
   * @return a partition in {@code [0, partitions)}
   */
  int partition(String topic, byte[] key, byte[] value, int partitions);

  /**
   * The default partition of a keyed record: Kafka's {@code toPositive(murmur2(key)) % partitions},
   * the same as the broker's and the Go client's {@code PartitionForKey}; for a partitioner that
   * keeps the default for some records.
   */
  static int partitionForKey(byte[] key, int partitions) {
    return io.brook.protocol.Partitioner.partitionForKey(key, partitions);
  }
}
