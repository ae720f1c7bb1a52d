package io.brook.broker.core;

import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.IncomingBatch;
import java.util.function.Supplier;

/**
 * One batch of a produce request, unchecked: where it goes and its records in the form they came.
 *
 * @param partition null when the broker partitions the batch (listed records only)
 * @param baseSequence the idempotent producer's sequence of its first record, or null
 * @param form the records as the door received them, made when the core reaches the batch: after the
 *     request's whole-request checks and one batch at a time, so a refused request or batch never has
 *     its records copied, and a request of many batches never holds them all at once
 * @param undecodable null, or why the door's message is malformed beyond what one form can carry (a
 *     batch with two forms goes as one of them, and this): refused where the validator would refuse it
 * @param sizeBytes about what the batch takes in the log, for the disk guard until free space is read
 */
public record BatchToAppend(String topic, Integer partition, Integer baseSequence, Supplier<IncomingBatch> form,
    BrokerException undecodable, long sizeBytes) {
  public BatchToAppend {
    if (form == null) {
      throw new IllegalArgumentException("a batch needs its records");
    }
  }

  public static BatchToAppend of(String topic, Integer partition, Integer baseSequence, Supplier<IncomingBatch> form,
      long sizeBytes) {
    return new BatchToAppend(topic, partition, baseSequence, form, null, sizeBytes);
  }
}
