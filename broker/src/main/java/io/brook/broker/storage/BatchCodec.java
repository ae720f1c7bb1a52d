package io.brook.broker.storage;

import io.brook.broker.records.LogRecord;
import io.brook.broker.records.ProducerStamp;
import io.brook.broker.records.RecordHeader;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.batch.CorruptBatchException;
import io.brook.protocol.batch.KafkaBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Encodes and decodes stored batches. The layout is {@link BatchFormat}, shared with the clients
 * that fetch raw batches: appends write version 2 (D37, {@link Version2Encoder}); everything that
 * reads takes version 1 too, which data directories written before issue 25 hold. Every engine (the
 * Chronicle log, the tests' memory log), the offline dump and the codec benchmark use it, so it is public.
 */
public final class BatchCodec {
  /** The most bytes a stored batch's header takes: what a header-only read copies. */
  public static final int MAX_HEADER_SIZE = Math.max(BatchFormat.HEADER_SIZE_WITH_PRODUCER,
      BatchFormat.V2_PREFIX_SIZE + KafkaBatch.HEADER_SIZE);

  private BatchCodec() {}

  /**
   * Encodes a batch in version 2 into {@code out} (reset first) and returns its header. For a Kafka
   * batch only the prefix and the Kafka header go into {@code out}: the stored batch is {@code out}'s
   * bytes followed by the Kafka batch's records, which the caller copies from where they are
   * ({@link #kafkaRecordsFrom}).
   *
   * @param previousRunningMax the running max timestamp of the partition before this batch
   */
  public static BatchHeader encode(ByteWriter out, AppendBatch batch, long baseOffset, long previousRunningMax,
      long logPosition, CRC32C crc) {
    return Version2Encoder.encode(out, batch, baseOffset, previousRunningMax, logPosition, crc);
  }

  /** Where the records of {@code batch}'s Kafka batch start in its array (they follow {@link #encode}'s bytes). */
  public static int kafkaRecordsFrom(AppendBatch batch) {
    return batch.kafka().offset() + KafkaBatch.HEADER_SIZE;
  }

  /** How many bytes of records follow {@link #encode}'s output: a Kafka batch's, else none. */
  public static int kafkaRecordsLength(AppendBatch batch) {
    return batch.kafka() == null ? 0 : batch.kafka().length() - KafkaBatch.HEADER_SIZE;
  }

  static long timestampOf(LogRecord r, AppendBatch batch) {
    return batch.logAppendTime() || r.timestamp() < 0 ? batch.appendTimeMs() : r.timestamp();
  }

  /**
   * Whether the stored batch whose header is in {@code b[from...]} may hold a record at or after
   * {@code timestampMs}: a version 2 batch says by its own max timestamp (computed at the append, the
   * append time under LogAppendTime); a version 1 batch carries only the running max, so maybe.
   */
  public static boolean mayReach(byte[] b, int from, long timestampMs) {
    return BatchFormat.version(b, from) != BatchFormat.VERSION_2
        || KafkaBatch.longAt(b, from + BatchFormat.V2_PREFIX_SIZE + KafkaBatch.MAX_TIMESTAMP) >= timestampMs;
  }

  public static BatchInfo info(byte[] b, int from, int length) {
    BatchHeader h = header(b, from, length);
    return new BatchInfo(h.baseOffset(), h.recordCount(), h.appendTimeMs(), producer(b, from));
  }

  /** The producer fields of a stored batch, or {@link ProducerStamp#NONE}. */
  public static ProducerStamp producer(byte[] b, int from) {
    if (b[from] == BatchFormat.VERSION_2) {
      int k = from + BatchFormat.V2_PREFIX_SIZE;
      long id = KafkaBatch.producerId(b, k);
      return id < 0 ? ProducerStamp.NONE
          : new ProducerStamp(id, KafkaBatch.producerEpoch(b, k), KafkaBatch.baseSequence(b, k));
    }
    if ((b[from + BatchFormat.ATTRIBUTES] & BatchFormat.ATTR_PRODUCER) == 0) {
      return ProducerStamp.NONE;
    }
    return new ProducerStamp(BatchFormat.longAt(b, from + BatchFormat.PRODUCER_ID),
        BatchFormat.shortAt(b, from + BatchFormat.PRODUCER_EPOCH), BatchFormat.intAt(b, from + BatchFormat.BASE_SEQUENCE));
  }

  /**
   * Reads the header of a stored batch of {@code length} bytes whose first bytes (at least
   * {@link #MAX_HEADER_SIZE}, or all) are in {@code b[from...]}. For version 2 the record count is the
   * offsets the Kafka batch spans (its last offset delta + 1), which the validator made its count.
   */
  public static BatchHeader header(byte[] b, int from, int length) {
    byte version = length > 0 ? b[from] : -1;
    if (version == BatchFormat.VERSION && length >= BatchFormat.HEADER_SIZE) {
      return new BatchHeader(BatchFormat.intAt(b, from + BatchFormat.RECORD_COUNT),
          BatchFormat.longAt(b, from + BatchFormat.BASE_OFFSET),
          BatchFormat.longAt(b, from + BatchFormat.RUNNING_MAX_TIMESTAMP),
          BatchFormat.longAt(b, from + BatchFormat.APPEND_TIME), BatchFormat.longAt(b, from + BatchFormat.LOG_POSITION),
          length);
    }
    int k = from + BatchFormat.V2_PREFIX_SIZE;
    if (version == BatchFormat.VERSION_2 && length >= BatchFormat.V2_PREFIX_SIZE + KafkaBatch.HEADER_SIZE
        && b[k + KafkaBatch.MAGIC] == KafkaBatch.MAGIC_V2
        && KafkaBatch.intAt(b, k + KafkaBatch.BATCH_LENGTH) == length - BatchFormat.V2_PREFIX_SIZE - KafkaBatch.LOG_OVERHEAD) {
      return new BatchHeader(KafkaBatch.lastOffsetDelta(b, k) + 1, KafkaBatch.baseOffset(b, k),
          BatchFormat.longAt(b, from + BatchFormat.V2_RUNNING_MAX_TIMESTAMP),
          BatchFormat.longAt(b, from + BatchFormat.V2_APPEND_TIME), BatchFormat.longAt(b, from + BatchFormat.V2_LOG_POSITION),
          length);
    }
    if (version > BatchFormat.VERSION_2) {
      throw new StorageException("batch of format version " + version + ", which this broker does not know: a newer "
          + "Brook wrote it (downgrading is not supported)");
    }
    throw new StorageException("corrupt batch: length " + length + ", version " + version);
  }

  /** True when the batch matches its CRC32C (version 1: of the records section; version 2: Kafka's). */
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
        out.add(toRecord(in));
        added++;
        bytes += size;
      }
      return bytes;
    } catch (CorruptBatchException e) {
      throw new StorageException(e.getMessage());
    }
  }

  /** The reader's current record, copied (a Kafka null value or header value becomes empty: D45). */
  static LogRecord toRecord(BatchReader in) {
    List<RecordHeader> headers = List.of();
    if (in.headerCount() > 0) {
      headers = new ArrayList<>(in.headerCount());
      for (int j = 0; j < in.headerCount(); j++) {
        headers.add(new RecordHeader(in.copyHeaderName(j), in.copyHeaderValue(j)));
      }
    }
    return new LogRecord(in.offset(), in.timestamp(), in.copyKey(), in.copyValue(), headers);
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
