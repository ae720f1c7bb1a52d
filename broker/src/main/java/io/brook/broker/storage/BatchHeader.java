package io.brook.broker.storage;

/** The fields of a stored batch header that the logs navigate by. */
public record BatchHeader(int recordCount, long baseOffset, long runningMaxTimestamp, long appendTimeMs,
    long logPosition, int storedLength) {
  public long nextOffset() {
    return baseOffset + recordCount;
  }

  /** The same header for a batch of another stored length (a conversion to the other version). */
  public BatchHeader withStoredLength(int length) {
    return new BatchHeader(recordCount, baseOffset, runningMaxTimestamp, appendTimeMs, logPosition, length);
  }

  /** Log position just after this batch. */
  public long endLogPosition() {
    return logPosition + storedLength;
  }
}
