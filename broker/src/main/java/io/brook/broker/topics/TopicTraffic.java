package io.brook.broker.topics;

import io.brook.broker.records.LogRecord;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Records and payload bytes that went into and out of one topic since the broker started (or the
 * topic was created). LongAdders: producers and readers on many threads bump them without
 * contending; metrics read them at scrape time.
 */
public final class TopicTraffic {
  private final LongAdder producedRecords = new LongAdder();
  private final LongAdder producedBytes = new LongAdder();
  private final LongAdder fetchedRecords = new LongAdder();
  private final LongAdder fetchedBytes = new LongAdder();

  void produced(long records, long bytes) {
    producedRecords.add(records);
    producedBytes.add(bytes);
  }

  /**
   * Records handed to a consumer: a fetch answer, a tail stream, an ack-mode delivery. The bytes are
   * their payload, or for a raw-batch answer the stored batches sent (decoding them to count would
   * cost what raw batches save).
   */
  public void fetched(long records, long bytes) {
    fetchedRecords.add(records);
    fetchedBytes.add(bytes);
  }

  public void fetched(List<LogRecord> records) {
    fetched(records.size(), payload(records));
  }

  private static long payload(List<LogRecord> records) {
    long bytes = 0;
    for (LogRecord r : records) {
      bytes += r.payloadSize();
    }
    return bytes;
  }

  public long producedRecords() {
    return producedRecords.sum();
  }

  public long producedBytes() {
    return producedBytes.sum();
  }

  public long fetchedRecords() {
    return fetchedRecords.sum();
  }

  public long fetchedBytes() {
    return fetchedBytes.sum();
  }
}
