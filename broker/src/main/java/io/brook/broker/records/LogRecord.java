package io.brook.broker.records;

import java.util.List;

/**
 * A record as the storage layer sees it. On append the offset is ignored (the log assigns it) and a
 * negative timestamp means "the append time".
 *
 * @param key null when the record has no key (an empty array is the empty key)
 */
public record LogRecord(long offset, long timestamp, byte[] key, byte[] value, List<RecordHeader> headers) {
  public LogRecord {
    if (value == null) {
      throw new IllegalArgumentException("value must not be null (use an empty array)");
    }
    headers = headers == null ? List.of() : headers;
  }

  /** A record to append: no offset yet. */
  public static LogRecord of(byte[] key, byte[] value, long timestamp, List<RecordHeader> headers) {
    return new LogRecord(-1, timestamp, key, value, headers);
  }

  /** Bytes of payload (key, value, header names and values): what size limits count. */
  public int payloadSize() {
    int size = (key == null ? 0 : key.length) + value.length;
    for (RecordHeader h : headers) {
      size += h.nameUtf8().length + h.value().length;
    }
    return size;
  }
}
