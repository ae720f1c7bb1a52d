package io.brook.broker.core;

import java.util.List;

/**
 * One fetch: partitions read in order, sharing the record and byte limits.
 *
 * @param maxBytes counted by payload; the first record always comes, however large
 * @param form records, or whole batches in the form the reader reads (stored as they are, version 1
 *     only, or Kafka's); limits and the answer cap count batches as the reader receives them
 * @param maxWaitMs how long to wait for records when none are there (the broker caps it)
 */
public record FetchQuery(List<FetchPosition> positions, int maxRecords, int maxBytes, BatchForm form,
    long maxWaitMs) {
  public FetchQuery {
    positions = List.copyOf(positions);
    if (form == null) {
      throw new IllegalArgumentException("a fetch names the form it wants");
    }
  }
}
