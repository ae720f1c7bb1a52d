package io.brook.broker.storage;

import static io.brook.protocol.batch.BatchFormat.*;

import io.brook.broker.records.EncodedRecords;
import io.brook.broker.records.LogRecord;
import io.brook.broker.records.RecordHeader;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Writes {@link io.brook.protocol.batch.BatchFormat} version 1, the format the broker stored before
 * issue 25: no longer for appends (they write version 2), but for clients of a raw fetch that read
 * only version 1 (a version 2 batch is converted for them) and for tests that make a data directory
 * as an earlier broker left it.
 */
public final class Version1Encoder {
  private Version1Encoder() {}

  /**
   * Encodes a batch of listed or encoded records into {@code out} (reset first) and returns its
   * header. For a batch of {@link EncodedRecords} only the header goes into {@code out}: the stored
   * batch is {@code out}'s bytes followed by the encoded section.
   *
   * @param previousRunningMax the running max timestamp of the partition before this batch
   */
  public static BatchHeader encode(ByteWriter out, AppendBatch batch, long baseOffset, long previousRunningMax,
      long logPosition, CRC32C crc) {
    if (batch.kafka() != null) {
      throw new IllegalArgumentException("a Kafka batch is stored in version 2 only");
    }
    out.reset();
    boolean producer = !batch.producer().isNone();
    int headerSize = producer ? HEADER_SIZE_WITH_PRODUCER : HEADER_SIZE;
    out.position(headerSize);
    long baseTimestamp;
    long maxTimestamp;
    int recordsLength;
    crc.reset();
    EncodedRecords encoded = batch.encoded();
    if (encoded != null) {
      baseTimestamp = encoded.baseTimestamp();
      maxTimestamp = batch.logAppendTime() ? batch.appendTimeMs() : encoded.maxTimestamp();
      recordsLength = encoded.length();
      crc.update(encoded.array(), encoded.offset(), recordsLength);
    } else {
      List<LogRecord> records = batch.records();
      baseTimestamp = BatchCodec.timestampOf(records.get(0), batch);
      maxTimestamp = Long.MIN_VALUE;
      for (LogRecord r : records) {
        long ts = BatchCodec.timestampOf(r, batch);
        maxTimestamp = Math.max(maxTimestamp, ts);
        writeRecord(out, r, ts - baseTimestamp);
      }
      recordsLength = out.position() - headerSize;
      crc.update(out.array(), headerSize, recordsLength);
    }
    long runningMax = Math.max(previousRunningMax, maxTimestamp);
    int count = batch.recordCount();
    long appendTime = batch.appendTimeMs();
    byte[] b = out.array();
    b[0] = VERSION;
    b[ATTRIBUTES] = (byte) ((batch.logAppendTime() ? ATTR_LOG_APPEND_TIME : 0) | (producer ? ATTR_PRODUCER : 0));
    out.putIntAt(RECORD_COUNT, count);
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
    return new BatchHeader(count, baseOffset, runningMax, appendTime, logPosition, headerSize + recordsLength);
  }

  private static void writeRecord(ByteWriter out, LogRecord r, long timestampDelta) {
    out.putVarint(bodyLength(r, timestampDelta));
    out.putZigZagLong(timestampDelta);
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
}
