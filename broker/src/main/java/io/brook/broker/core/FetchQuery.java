package io.brook.broker.core;

import java.util.List;

/**
 * One fetch: partitions read in order, sharing the record and byte limits.
 *
 * @param maxBytes counted by payload; the first record always comes, however large
 * @param rawBatches pass the stored batches through as they are instead of records
 * @param maxWaitMs how long to wait for records when none are there (the broker caps it)
 */
public record FetchQuery(List<FetchPosition> positions, int maxRecords, int maxBytes, boolean rawBatches,
    long maxWaitMs) {
  public FetchQuery {
    positions = List.copyOf(positions);
  }
}
