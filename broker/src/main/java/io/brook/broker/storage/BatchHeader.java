package io.brook.broker.storage;

/** The fields of a stored batch header that the logs navigate by. */
public record BatchHeader(int recordCount, long baseOffset, long runningMaxTimestamp, long appendTimeMs,
    long logPosition, int storedLength) {
  public long nextOffset() {
    return baseOffset + recordCount;
  }

  /** Log position just after this batch. */
  public long endLogPosition() {
    return logPosition + storedLength;
  }
}
