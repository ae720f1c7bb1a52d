package io.brook.broker.storage.dump;

import java.nio.file.Path;
import java.util.List;

/**
 * What an offline dump of a partition found.
 *
 * @param roll the segment roll the queue was created with ("1h", ...)
 * @param brokerRunning a broker held the data directory during the dump: a snapshot of a live log
 * @param firstOffset -1 when the log holds no batch
 * @param lastOffset -1 when the log holds no batch
 * @param gaps places where a batch starts after the offset the previous one ended at
 * @param overlaps places where a batch starts before the offset the previous one ended at
 * @param malformedBatches batches whose header or records do not decode
 * @param inconsistencies headers that disagree with the batch before them (log position, running max timestamp)
 * @param problems the first problems found, one line each
 */
public record DumpSummary(Path dir, String roll, boolean brokerRunning, int segments, long batches, long records,
    long bytes, long firstOffset, long lastOffset, long gaps, long overlaps, long checksumFailures,
    long malformedBatches, long inconsistencies, Tail tail, List<String> problems) {

  /** What follows the last complete batch. */
  public enum Tail {
    /** Nothing. */
    CLEAN,
    /**
     * An incomplete document: its writer died mid-append (Chronicle's write lock is still held) and no
     * broker has opened the partition since. Readers never see it; the broker clears the lock at start
     * and its next append overwrites the document. Also a queue whose creation a kill cut short (its
     * metadata.cq4t unfinished, or without the keys Chronicle adds right after it): it holds nothing,
     * and the broker removes or completes the file at start.
     */
    TORN,
    /**
     * Bytes of an incomplete document, with no lock held: what an append cut short by an earlier crash
     * left, after the broker recovered. Harmless: readers stop before it and later appends overwrite it.
     */
    LEFTOVER,
    /** The broker is running and was appending during the dump. */
    APPEND_IN_PROGRESS
  }

  /** True when the files hold anything a crash alone cannot explain: gaps, overlaps, bad checksums, bad batches. */
  public boolean corrupt() {
    return gaps + overlaps + checksumFailures + malformedBatches + inconsistencies > 0;
  }
}
