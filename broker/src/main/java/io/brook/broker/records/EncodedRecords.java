package io.brook.broker.records;

/**
 * A batch's records already in the stored records section format ({@code BatchFormat}), as a
 * producer sends them: the log writes a header before them and copies them as they are. The topic
 * layer checks them first (every length, the count, sizes, timestamps); the storage trusts that, as
 * it trusts a list of {@link LogRecord}s.
 *
 * @param array holds the section at {@code [offset, offset + length)}; not copied, not changed
 * @param baseTimestamp what the records' timestamp deltas are from
 * @param maxTimestamp the largest record timestamp, for the time index
 * @param payloadBytes keys, values and headers of all records, for the traffic counters
 */
public record EncodedRecords(byte[] array, int offset, int length, int count, long baseTimestamp, long maxTimestamp,
    long payloadBytes) {
  public EncodedRecords {
    if (count <= 0) {
      throw new IllegalArgumentException("a batch needs at least one record");
    }
    if (offset < 0 || length < 0 || offset > array.length - length) {
      throw new IllegalArgumentException("[" + offset + ", " + offset + " + " + length + ") is outside "
          + array.length + " bytes");
    }
  }
}
