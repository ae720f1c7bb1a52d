package io.brook.broker.storage;

import io.brook.broker.records.LogRecord;
import io.brook.broker.records.RecordHeader;
import io.brook.broker.records.EncodedRecords;
import io.brook.broker.records.ProducerStamp;
import static io.brook.protocol.batch.BatchFormat.*;

import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.batch.CorruptBatchException;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Encodes and decodes stored batches. The layout is {@link BatchFormat}, shared with the clients
 * that fetch raw batches; this class turns {@link LogRecord}s into it and back. Every engine (the
 * Chronicle log, the tests' memory log), the offline dump and the codec benchmark use it, so it is public.
 */
public final class BatchCodec {
  private BatchCodec() {}

  /**
   * Encodes a batch into {@code out} (reset first) and returns its header. For a batch of
   * {@link EncodedRecords} only the header goes into {@code out}: the stored batch is {@code out}'s
   * bytes followed by the encoded section, which the caller copies from where it is.
   *
   * @param previousRunningMax the running max timestamp of the partition before this batch
   */
  public static BatchHeader encode(ByteWriter out, AppendBatch batch, long baseOffset, long previousRunningMax,
      long logPosition, CRC32C crc) {
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
      baseTimestamp = timestampOf(records.get(0), batch);
      maxTimestamp = Long.MIN_VALUE;
      for (LogRecord r : records) {
        long ts = timestampOf(r, batch);
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

  public static BatchInfo info(byte[] b, int from, int length) {
    BatchHeader h = header(b, from, length);
    return new BatchInfo(h.baseOffset(), h.recordCount(), h.appendTimeMs(), producer(b, from));
  }

  /** The producer fields of a stored batch, or {@link ProducerStamp#NONE}. */
  public static ProducerStamp producer(byte[] b, int from) {
    if ((b[from + ATTRIBUTES] & ATTR_PRODUCER) == 0) {
      return ProducerStamp.NONE;
    }
    return new ProducerStamp(longAt(b, from + PRODUCER_ID), shortAt(b, from + PRODUCER_EPOCH),
        intAt(b, from + BASE_SEQUENCE));
  }

  private static long timestampOf(LogRecord r, AppendBatch batch) {
    return batch.logAppendTime() || r.timestamp() < 0 ? batch.appendTimeMs() : r.timestamp();
  }

  /** Reads the header of a stored batch held in {@code b[from, from + length)}. */
  public static BatchHeader header(byte[] b, int from, int length) {
    if (length < HEADER_SIZE || b[from] != VERSION) {
      throw new StorageException("corrupt batch: length " + length + ", version " + (length > 0 ? b[from] : -1));
    }
    return new BatchHeader(intAt(b, from + RECORD_COUNT), longAt(b, from + BASE_OFFSET),
        longAt(b, from + RUNNING_MAX_TIMESTAMP), longAt(b, from + APPEND_TIME),
        longAt(b, from + LOG_POSITION), length);
  }

  /** True when the records section matches the stored CRC32C. */
  public static boolean checksumMatches(byte[] b, int from, int length, CRC32C crc) {
    return BatchFormat.checksumMatches(b, from, length, crc);
  }

  /**
   * Decodes records of the batch in {@code b[from, from + length)} with offsets from {@code fromOffset},
   * adding to {@code out} until {@code maxRecords} or {@code maxBytes} (of payload; the first record is
   * always taken, when {@code out} is still empty) is reached.
   *
   * @return payload bytes added
   */
  public static int decode(byte[] b, int from, int length, long fromOffset, int maxRecords, int maxBytes,
      List<LogRecord> out, BatchReader in) {
    try {
      in.wrap(b, from, length);
      in.skipTo(fromOffset);
      int added = 0;
      int bytes = 0;
      while (added < maxRecords && in.next()) {
        int size = in.payloadSize(); // sized before anything is copied: a record over the limit is not
        if (!out.isEmpty() && bytes + size > maxBytes) {
          break;
        }
        List<RecordHeader> headers = List.of();
        if (in.headerCount() > 0) {
          headers = new ArrayList<>(in.headerCount());
          for (int j = 0; j < in.headerCount(); j++) {
            headers.add(new RecordHeader(in.copyHeaderName(j), in.copyHeaderValue(j)));
          }
        }
        out.add(new LogRecord(in.offset(), in.timestamp(), in.copyKey(), in.copyValue(), headers));
        added++;
        bytes += size;
      }
      return bytes;
    } catch (CorruptBatchException e) {
      throw new StorageException(e.getMessage());
    }
  }

  /** The offset of the first record in the batch with a timestamp at or after {@code timestampMs}, or -1. */
  public static long firstOffsetAtOrAfter(byte[] b, int from, int length, long timestampMs, BatchReader in) {
    try {
      in.wrap(b, from, length);
      while (in.next()) {
        if (in.timestamp() >= timestampMs) {
          return in.offset();
        }
      }
      return -1;
    } catch (CorruptBatchException e) {
      throw new StorageException(e.getMessage());
    }
  }
}
