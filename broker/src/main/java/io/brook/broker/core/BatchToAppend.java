package io.brook.broker.core;

import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.IncomingBatch;

/**
 * One batch of a produce request, unchecked: where it goes and its records in the form they came.
 *
 * @param partition null when the broker partitions the batch (listed records only)
 * @param baseSequence the idempotent producer's sequence of its first record, or null
 * @param records the records as the door received them
 * @param undecodable null, or why the door's message is malformed beyond what one form can carry (a
 *     batch with two forms goes as one of them, and this): refused where the validator would refuse it
 * @param sizeBytes about what the batch takes in the log, for the disk guard until free space is read
 */
public record BatchToAppend(String topic, Integer partition, Integer baseSequence, IncomingBatch records,
    BrokerException undecodable, long sizeBytes) {
  public BatchToAppend {
    if (records == null) {
      throw new IllegalArgumentException("a batch needs its records");
    }
  }

  public static BatchToAppend of(String topic, Integer partition, Integer baseSequence, IncomingBatch records,
      long sizeBytes) {
    return new BatchToAppend(topic, partition, baseSequence, records, null, sizeBytes);
  }
}
