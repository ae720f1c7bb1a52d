package io.brook.broker.core;

import io.brook.broker.groups.Settlement;
import java.util.List;

/**
 * What a share fetch answers: acknowledgements that did not apply, the records acquired by partition,
 * and how long they stay acquired.
 */
public record ShareFetchResult(List<Settlement.Failure> ackFailures, List<Acquired> partitions, long lockMs) {

  /**
   * One partition's acquired records: the stored Kafka batches that hold them (as stored: they may hold
   * records before or after, which the client skips) and the acquired offsets, in runs of one delivery
   * count, ascending.
   */
  public record Acquired(String topic, int partition, List<byte[]> batches, List<Run> runs) {}

  public record Run(long first, long last, int deliveryCount) {}
}
