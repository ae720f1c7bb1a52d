package io.brook.broker.storage;

import java.util.List;

/**
 * Whole stored batches read from a partition, each a fresh array the caller owns, and the offset to
 * read next (the end of the last batch). The first batch may start before the offset asked for.
 */
public record BatchReadResult(List<byte[]> batches, long nextOffset, int bytes) {
  public static BatchReadResult empty(long nextOffset) {
    return new BatchReadResult(List.of(), nextOffset, 0);
  }
}
