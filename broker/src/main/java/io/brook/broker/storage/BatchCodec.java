package io.brook.broker.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The stored form of a batch: one fixed little-endian header, then the records.
 *
 * <pre>
 * off size field
 *   0  1   version (1)
 *   1  1   attributes (bit 0: timestamps are the log append time)
 *   2  4   record count
 *   6  8   base offset
 *  14  8   base timestamp (the first record's; record timestamps are deltas from it)
 *  22  8   running max timestamp: the largest timestamp in this partition up to and including this
 *          batch. Monotonic, so offset-for-timestamp is a binary search over batches (the time index)
 *  30  8   append time (broker clock)
 *  38  8   log position: bytes of all batches before this one in the partition (sizes without files)
 *  46  4   CRC32C of the records section
 *  50  4   length of the records section
 *  54 14   only with attribute bit 1 (an idempotent producer's batch): producer id (8), epoch (2),
 *          base sequence (4); plain batches do not pay for them
 *  54|68   records: varint length, then zig-zag timestamp delta, varint key length + 1 (0 = no key),
 *          key, varint value length, value, varint header count, per header varint name length,
 *          UTF-8 name, varint value length, value.
 * </pre>
 */
final class BatchCodec {
  static final byte VERSION = 1;
  static final int ATTR_LOG_APPEND_TIME = 1;
  static final int ATTR_PRODUCER = 2;

  static final int ATTRIBUTES = 1;
  static final int RECORD_COUNT = 2;
  static final int BASE_OFFSET = 6;
  static final int BASE_TIMESTAMP = 14;
  static final int RUNNING_MAX_TIMESTAMP = 22;
  static final int APPEND_TIME = 30;
  static final int LOG_POSITION = 38;
  static final int CRC = 46;
  static final int RECORDS_LENGTH = 50;
  static final int HEADER_SIZE = 54;
  static final int PRODUCER_ID = 54;
  static final int PRODUCER_EPOCH = 62;
  static final int BASE_SEQUENCE = 64;
  static final int HEADER_SIZE_WITH_PRODUCER = 68;

  private BatchCodec() {}

  /**
   * Encodes a batch into {@code out} (reset first) and returns its header.
   *
   * @param previousRunningMax the running max timestamp of the partition before this batch
   */
  static BatchHeader encode(ByteWriter out, AppendBatch batch, long baseOffset, long previousRunningMax,
      long logPosition, CRC32C crc) {
    out.reset();
    boolean producer = !batch.producer().isNone();
    int headerSize = producer ? HEADER_SIZE_WITH_PRODUCER : HEADER_SIZE;
    out.position(headerSize);
    List<LogRecord> records = batch.records();
    long appendTime = batch.appendTimeMs();
    long baseTimestamp = timestampOf(records.get(0), batch);
    long runningMax = previousRunningMax;
    for (LogRecord r : records) {
      long ts = timestampOf(r, batch);
      runningMax = Math.max(runningMax, ts);
      out.putVarint(bodyLength(r, ts - baseTimestamp));
      out.putZigZagLong(ts - baseTimestamp);
      out.putVarint(r.key() == null ? 0 : r.key().length + 1);
      if (r.key() != null) {
        out.putBytes(r.key());
      }
      out.putVarint(r.value().length);
      out.putBytes(r.value());
      out.putVarint(r.headers().size());
      for (RecordHeader h : r.headers()) {
        out.putVarint(h.nameUtf8().length);
        out.putBytes(h.nameUtf8());
        out.putVarint(h.value().length);
        out.putBytes(h.value());
      }
    }
    int recordsLength = out.position() - headerSize;
    crc.reset();
    crc.update(out.array(), headerSize, recordsLength);
    byte[] b = out.array();
    b[0] = VERSION;
    b[ATTRIBUTES] = (byte) ((batch.logAppendTime() ? ATTR_LOG_APPEND_TIME : 0) | (producer ? ATTR_PRODUCER : 0));
    out.putIntAt(RECORD_COUNT, records.size());
    out.putLongAt(BASE_OFFSET, baseOffset);
    out.putLongAt(BASE_TIMESTAMP, baseTimestamp);
    out.putLongAt(RUNNING_MAX_TIMESTAMP, runningMax);
    out.putLongAt(APPEND_TIME, appendTime);
    out.putLongAt(LOG_POSITION, logPosition);
    out.putIntAt(CRC, (int) crc.getValue());
    out.putIntAt(RECORDS_LENGTH, recordsLength);
    if (producer) {
      out.putLongAt(PRODUCER_ID, batch.producer().producerId());
      out.putShortAt(PRODUCER_EPOCH, batch.producer().epoch());
      out.putIntAt(BASE_SEQUENCE, batch.producer().baseSequence());
    }
    return new BatchHeader(records.size(), baseOffset, runningMax, appendTime, logPosition,
        headerSize + recordsLength);
  }

  /** The encoded size of a record's body, so its length prefix is written once, before it. */
  private static int bodyLength(LogRecord r, long timestampDelta) {
    int keyField = r.key() == null ? 0 : r.key().length + 1;
    int size = ByteWriter.zigZagSize(timestampDelta) + ByteWriter.varintSize(keyField) + Math.max(0, keyField - 1)
        + ByteWriter.varintSize(r.value().length) + r.value().length + ByteWriter.varintSize(r.headers().size());
    for (RecordHeader h : r.headers()) {
      size += ByteWriter.varintSize(h.nameUtf8().length) + h.nameUtf8().length
          + ByteWriter.varintSize(h.value().length) + h.value().length;
    }
    return size;
  }

  static BatchInfo info(byte[] b, int from, int length) {
    BatchHeader h = header(b, from, length);
    return new BatchInfo(h.baseOffset(), h.recordCount(), h.appendTimeMs(), producer(b, from));
  }

  /** Where the records start: after the fixed header and, for producer batches, the producer fields. */
  static int headerSize(byte[] b, int from) {
    return (b[from + ATTRIBUTES] & ATTR_PRODUCER) != 0 ? HEADER_SIZE_WITH_PRODUCER : HEADER_SIZE;
  }

  /** The producer fields of a stored batch, or {@link ProducerStamp#NONE}. */
  static ProducerStamp producer(byte[] b, int from) {
    if ((b[from + ATTRIBUTES] & ATTR_PRODUCER) == 0) {
      return ProducerStamp.NONE;
    }
    return new ProducerStamp(ByteReader.longAt(b, from + PRODUCER_ID), ByteReader.shortAt(b, from + PRODUCER_EPOCH),
        ByteReader.intAt(b, from + BASE_SEQUENCE));
  }

  private static long timestampOf(LogRecord r, AppendBatch batch) {
    return batch.logAppendTime() || r.timestamp() < 0 ? batch.appendTimeMs() : r.timestamp();
  }

  /** Reads the header of a stored batch held in {@code b[from, from + length)}. */
  static BatchHeader header(byte[] b, int from, int length) {
    if (length < HEADER_SIZE || b[from] != VERSION) {
      throw new StorageException("corrupt batch: length " + length + ", version " + (length > 0 ? b[from] : -1));
    }
    return new BatchHeader(ByteReader.intAt(b, from + RECORD_COUNT), ByteReader.longAt(b, from + BASE_OFFSET),
        ByteReader.longAt(b, from + RUNNING_MAX_TIMESTAMP), ByteReader.longAt(b, from + APPEND_TIME),
        ByteReader.longAt(b, from + LOG_POSITION), length);
  }

  /** True when the records section matches the stored CRC32C. */
  static boolean checksumMatches(byte[] b, int from, int length, CRC32C crc) {
    int recordsLength = ByteReader.intAt(b, from + RECORDS_LENGTH);
    int headerSize = headerSize(b, from);
    if (recordsLength != length - headerSize) {
      return false;
    }
    crc.reset();
    crc.update(b, from + headerSize, recordsLength);
    return (int) crc.getValue() == ByteReader.intAt(b, from + CRC);
  }

  /**
   * Decodes records of the batch in {@code b[from, from + length)} with offsets from {@code fromOffset},
   * adding to {@code out} until {@code maxRecords} or {@code maxBytes} (of payload; the first record is
   * always taken, when {@code out} is still empty) is reached.
   *
   * @return payload bytes added
   */
  static int decode(byte[] b, int from, int length, long fromOffset, int maxRecords, int maxBytes,
      List<LogRecord> out, ByteReader in) {
    BatchHeader h = header(b, from, length);
    boolean logAppendTime = (b[from + ATTRIBUTES] & ATTR_LOG_APPEND_TIME) != 0;
    long baseTimestamp = ByteReader.longAt(b, from + BASE_TIMESTAMP);
    in.wrap(b, from + headerSize(b, from), from + length);
    int added = 0;
    int bytes = 0;
    for (int i = 0; i < h.recordCount() && in.hasRemaining(); i++) {
      long offset = h.baseOffset() + i;
      int bodyLength = in.varint();
      if (offset < fromOffset) {
        in.skip(bodyLength);
        continue;
      }
      if (added >= maxRecords) {
        break;
      }
      int bodyStart = in.position();
      long ts = baseTimestamp + in.zigZagLong();
      int keyField = in.varint();
      byte[] key = keyField == 0 ? null : in.bytes(keyField - 1);
      byte[] value = in.bytes(in.varint());
      int headerCount = in.varint();
      List<RecordHeader> headers = headerCount == 0 ? List.of() : new ArrayList<>(headerCount);
      for (int j = 0; j < headerCount; j++) {
        byte[] name = in.bytes(in.varint());
        headers.add(new RecordHeader(name, in.bytes(in.varint())));
      }
      if (in.position() != bodyStart + bodyLength) {
        throw new StorageException("corrupt batch at offset " + offset + ": record length mismatch");
      }
      LogRecord r = new LogRecord(offset, logAppendTime ? h.appendTimeMs() : ts, key, value, headers);
      int size = r.payloadSize();
      if (!out.isEmpty() && bytes + size > maxBytes) {
        break;
      }
      out.add(r);
      added++;
      bytes += size;
    }
    return bytes;
  }

  /** The offset of the first record in the batch with a timestamp at or after {@code timestampMs}, or -1. */
  static long firstOffsetAtOrAfter(byte[] b, int from, int length, long timestampMs, ByteReader in) {
    BatchHeader h = header(b, from, length);
    if ((b[from + ATTRIBUTES] & ATTR_LOG_APPEND_TIME) != 0) {
      return h.appendTimeMs() >= timestampMs ? h.baseOffset() : -1;
    }
    long baseTimestamp = ByteReader.longAt(b, from + BASE_TIMESTAMP);
    in.wrap(b, from + headerSize(b, from), from + length);
    for (int i = 0; i < h.recordCount(); i++) {
      int bodyLength = in.varint();
      int bodyStart = in.position();
      if (baseTimestamp + in.zigZagLong() >= timestampMs) {
        return h.baseOffset() + i;
      }
      in.position(bodyStart + bodyLength);
    }
    return -1;
  }
}
