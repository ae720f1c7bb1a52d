package io.brook.broker.core;

/**
 * What form a fetch wants its records in (D46). The stored batches are version 1 (data written
 * before issue 25) or version 2 (Brook's prefix and a Kafka record batch v2); a reader that cannot
 * read what is stored gets a converted copy, and only it pays for the conversion.
 */
public enum BatchForm {
  /** Decoded records, one by one (gRPC's default, the Go client, grpcurl, Tail). */
  RECORDS,
  /** Stored batches in version 1: a raw-fetch client that reads only version 1 (unset max_batch_version). */
  STORED_V1,
  /** Stored batches as they are, version 1 or 2: a raw-fetch client that reads both. */
  STORED_AS_IS,
  /**
   * Kafka record batches v2, as a Kafka fetch answers: passed as version 2 stored batches (a version
   * 1 converted), whose Kafka part after Brook's prefix the Kafka door sends without copying it out;
   * limits count the Kafka part only.
   */
  KAFKA;

  /** True for the forms that pass whole batches instead of records. */
  public boolean raw() {
    return this != RECORDS;
  }
}
