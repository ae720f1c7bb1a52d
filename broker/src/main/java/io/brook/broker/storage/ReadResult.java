package io.brook.broker.storage;

import io.brook.broker.records.LogRecord;
import java.util.List;

/** Records read from a partition, and the offset to read next. */
public record ReadResult(List<LogRecord> records, long nextOffset) {
  public static ReadResult empty(long nextOffset) {
    return new ReadResult(List.of(), nextOffset);
  }
}
