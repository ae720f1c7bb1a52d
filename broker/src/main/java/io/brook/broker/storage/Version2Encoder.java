package io.brook.broker.storage;

import io.brook.broker.records.EncodedRecords;
import io.brook.broker.records.KafkaRecords;
import io.brook.broker.records.LogRecord;
import io.brook.broker.records.ProducerStamp;
import io.brook.broker.records.RecordHeader;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.batch.CorruptBatchException;
import io.brook.protocol.batch.KafkaBatch;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Writes {@link BatchFormat} version 2, what every append stores (D37): Brook's prefix, then one
 * Kafka record batch v2. Listed records and Brook's encoded section are encoded once into an
 * uncompressed Kafka batch here; a Kafka batch keeps its records as they came, and only its header
 * is written here, with the assigned base offset, leader epoch 0 and, when the topic stamps append
 * times or the producer's max timestamp was wrong, Kafka's timestamp fields and a new CRC.
 */
final class Version2Encoder {
  /** Where the Kafka batch starts in {@code out}. */
  private static final int K = BatchFormat.V2_PREFIX_SIZE;

  private Version2Encoder() {}

  static BatchHeader encode(ByteWriter out, AppendBatch batch, long baseOffset, long previousRunningMax,
      long logPosition, CRC32C crc) {
    out.reset();
    out.position(K + KafkaBatch.HEADER_SIZE);
    KafkaRecords kafka = batch.kafka();
    long maxTimestamp;
    int storedLength;
    if (kafka != null) {
      maxTimestamp = batch.logAppendTime() ? batch.appendTimeMs() : kafka.maxTimestamp();
      storedLength = K + kafka.length();
      kafkaHeader(out.array(), kafka, baseOffset, batch.logAppendTime(), maxTimestamp, crc);
    } else {
      long baseTimestamp;
      long recordsMax;
      if (batch.encoded() != null) {
        long[] times = encodedRecords(out, batch.encoded(), batch);
        baseTimestamp = times[0];
        recordsMax = times[1];
      } else {
        List<LogRecord> records = batch.records();
        baseTimestamp = BatchCodec.timestampOf(records.get(0), batch);
        recordsMax = Long.MIN_VALUE;
        for (int i = 0; i < records.size(); i++) {
          LogRecord r = records.get(i);
          long ts = BatchCodec.timestampOf(r, batch);
          recordsMax = Math.max(recordsMax, ts);
          writeRecord(out, ts - baseTimestamp, i, r);
        }
      }
      maxTimestamp = batch.logAppendTime() ? batch.appendTimeMs() : recordsMax;
      storedLength = out.position();
      newKafkaHeader(out.array(), storedLength - K, batch, baseOffset, baseTimestamp, maxTimestamp, crc);
    }
    long runningMax = Math.max(previousRunningMax, maxTimestamp);
    BatchFormat.writeV2Prefix(out.array(), 0, batch.logAppendTime() ? BatchFormat.ATTR_LOG_APPEND_TIME : 0,
        runningMax, batch.appendTimeMs(), logPosition);
    return new BatchHeader(batch.recordCount(), baseOffset, runningMax, batch.appendTimeMs(), logPosition,
        storedLength);
  }

  /** The header of a batch this class encoded: uncompressed, offset deltas 0 to count - 1, CRC over it all. */
  private static void newKafkaHeader(byte[] b, int length, AppendBatch batch, long baseOffset, long baseTimestamp,
      long maxTimestamp, CRC32C crc) {
    ProducerStamp p = batch.producer();
    KafkaBatch.putLong(b, K + KafkaBatch.BASE_OFFSET, baseOffset);
    KafkaBatch.putInt(b, K + KafkaBatch.BATCH_LENGTH, length - KafkaBatch.LOG_OVERHEAD);
    KafkaBatch.putInt(b, K + KafkaBatch.PARTITION_LEADER_EPOCH, 0);
    b[K + KafkaBatch.MAGIC] = KafkaBatch.MAGIC_V2;
    KafkaBatch.putShort(b, K + KafkaBatch.ATTRIBUTES, (short) (batch.logAppendTime() ? KafkaBatch.TIMESTAMP_TYPE : 0));
    KafkaBatch.putInt(b, K + KafkaBatch.LAST_OFFSET_DELTA, batch.recordCount() - 1);
    KafkaBatch.putLong(b, K + KafkaBatch.BASE_TIMESTAMP, baseTimestamp);
    KafkaBatch.putLong(b, K + KafkaBatch.MAX_TIMESTAMP, maxTimestamp);
    KafkaBatch.putLong(b, K + KafkaBatch.PRODUCER_ID, p.isNone() ? KafkaBatch.NO_PRODUCER_ID : p.producerId());
    KafkaBatch.putShort(b, K + KafkaBatch.PRODUCER_EPOCH, p.isNone() ? KafkaBatch.NO_PRODUCER_EPOCH : p.epoch());
    KafkaBatch.putInt(b, K + KafkaBatch.BASE_SEQUENCE, p.isNone() ? KafkaBatch.NO_SEQUENCE : p.baseSequence());
    KafkaBatch.putInt(b, K + KafkaBatch.RECORDS_COUNT, batch.recordCount());
    KafkaBatch.recomputeCrc(b, K, length, crc);
  }

  /**
   * A producer's Kafka batch header, copied and patched: the base offset and leader epoch lie outside
   * the CRC; the timestamp type and max timestamp inside it, so when they change (a LogAppendTime
   * topic, or a producer's wrong max timestamp, which Kafka corrects too) the CRC is computed again
   * over the new header and the records where they are, without copying them.
   */
  private static void kafkaHeader(byte[] b, KafkaRecords kafka, long baseOffset, boolean logAppendTime,
      long maxTimestamp, CRC32C crc) {
    System.arraycopy(kafka.array(), kafka.offset(), b, K, KafkaBatch.HEADER_SIZE);
    KafkaBatch.setBaseOffset(b, K, baseOffset);
    KafkaBatch.setPartitionLeaderEpoch(b, K, 0);
    int attributes = KafkaBatch.attributes(b, K);
    int wanted = logAppendTime ? attributes | KafkaBatch.TIMESTAMP_TYPE : attributes & ~KafkaBatch.TIMESTAMP_TYPE;
    if (wanted != attributes || KafkaBatch.maxTimestamp(b, K) != maxTimestamp) {
      KafkaBatch.putShort(b, K + KafkaBatch.ATTRIBUTES, (short) wanted);
      KafkaBatch.putLong(b, K + KafkaBatch.MAX_TIMESTAMP, maxTimestamp);
      crc.reset();
      crc.update(b, K + KafkaBatch.ATTRIBUTES, KafkaBatch.HEADER_SIZE - KafkaBatch.ATTRIBUTES);
      crc.update(kafka.array(), kafka.offset() + KafkaBatch.HEADER_SIZE, kafka.length() - KafkaBatch.HEADER_SIZE);
      KafkaBatch.putInt(b, K + KafkaBatch.CRC, (int) crc.getValue());
    }
  }

  /** Brook's encoded section, re-encoded record by record (the validator walked it already). */
  private static long[] encodedRecords(ByteWriter out, EncodedRecords encoded, AppendBatch batch) {
    BatchReader in = new BatchReader();
    long baseTimestamp = batch.logAppendTime() ? batch.appendTimeMs() : encoded.baseTimestamp();
    long max = Long.MIN_VALUE;
    try {
      in.wrapRecords(encoded.array(), encoded.offset(), encoded.length(), encoded.count(), encoded.baseTimestamp());
      for (int i = 0; in.next(); i++) {
        long ts = batch.logAppendTime() ? batch.appendTimeMs() : in.timestamp();
        max = Math.max(max, ts);
        writeRecord(out, in, ts - baseTimestamp, i);
      }
    } catch (CorruptBatchException e) {
      throw new StorageException("an encoded section the validator passed is corrupt: " + e.getMessage());
    }
    return new long[] {baseTimestamp, max};
  }

  private static void writeRecord(ByteWriter out, long timestampDelta, int offsetDelta, LogRecord r) {
    int keyLength = r.key() == null ? -1 : r.key().length;
    int body = 1 + ByteWriter.zigZagSize(timestampDelta) + ByteWriter.zigZagSize(offsetDelta)
        + ByteWriter.zigZagSize(keyLength) + Math.max(0, keyLength) + ByteWriter.zigZagSize(r.value().length)
        + r.value().length + ByteWriter.zigZagSize(r.headers().size());
    for (RecordHeader h : r.headers()) {
      body += ByteWriter.zigZagSize(h.nameUtf8().length) + h.nameUtf8().length
          + ByteWriter.zigZagSize(h.value().length) + h.value().length;
    }
    out.putZigZagLong(body);
    out.putByte(0); // record attributes: none defined
    out.putZigZagLong(timestampDelta);
    out.putZigZagLong(offsetDelta);
    out.putZigZagLong(keyLength);
    if (r.key() != null) {
      out.putBytes(r.key());
    }
    out.putZigZagLong(r.value().length);
    out.putBytes(r.value());
    out.putZigZagLong(r.headers().size());
    for (RecordHeader h : r.headers()) {
      out.putZigZagLong(h.nameUtf8().length);
      out.putBytes(h.nameUtf8());
      out.putZigZagLong(h.value().length);
      out.putBytes(h.value());
    }
  }

  private static void writeRecord(ByteWriter out, BatchReader in, long timestampDelta, int offsetDelta) {
    byte[] a = in.array();
    int keyLength = in.hasKey() ? in.keyLength() : -1;
    int body = 1 + ByteWriter.zigZagSize(timestampDelta) + ByteWriter.zigZagSize(offsetDelta)
        + ByteWriter.zigZagSize(keyLength) + Math.max(0, keyLength) + ByteWriter.zigZagSize(in.valueLength())
        + in.valueLength() + ByteWriter.zigZagSize(in.headerCount());
    for (int h = 0; h < in.headerCount(); h++) {
      body += ByteWriter.zigZagSize(in.headerNameLength(h)) + in.headerNameLength(h)
          + ByteWriter.zigZagSize(in.headerValueLength(h)) + in.headerValueLength(h);
    }
    out.putZigZagLong(body);
    out.putByte(0);
    out.putZigZagLong(timestampDelta);
    out.putZigZagLong(offsetDelta);
    out.putZigZagLong(keyLength);
    if (keyLength > 0) {
      out.putBytes(a, in.keyOffset(), keyLength);
    }
    out.putZigZagLong(in.valueLength());
    out.putBytes(a, in.valueOffset(), in.valueLength());
    out.putZigZagLong(in.headerCount());
    for (int h = 0; h < in.headerCount(); h++) {
      out.putZigZagLong(in.headerNameLength(h));
      out.putBytes(a, in.headerNameOffset(h), in.headerNameLength(h));
      out.putZigZagLong(in.headerValueLength(h));
      out.putBytes(a, in.headerValueOffset(h), in.headerValueLength(h));
    }
  }
}
