package io.brook.client.producer;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.brook.protocol.batch.KafkaBatch;
import io.brook.protocol.v1.Durability;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * A {@code brook.v1.ProduceStreamRequest} written from already encoded batches: the message
 * frames around the records, then each batch copied in once, as {@code ProduceBatch.kafka_batch}
 * (D49), or, for a broker older than that field, as {@code ProduceBatch.encoded_records} (D31).
 * Field numbers are those of produce.proto (ProduceRequestEncodingTest parses the result with the
 * generated classes).
 */
final class ProduceRequestEncoding {
  // ProduceStreamRequest
  private static final int CORRELATION_ID = 1;
  private static final int REQUEST = 2;
  // ProduceRequest
  private static final int BATCHES = 1;
  private static final int DURABILITY = 2;
  private static final int PRODUCER_ID = 3;
  private static final int PRODUCER_EPOCH = 4;
  // ProduceBatch
  private static final int TOPIC = 1;
  private static final int PARTITION = 2;
  private static final int BASE_SEQUENCE = 4;
  private static final int ENCODED_RECORDS = 5;
  private static final int KAFKA_BATCH = 6;
  // EncodedRecords
  private static final int RECORD_COUNT = 1;
  private static final int BASE_TIMESTAMP = 2;
  private static final int RECORDS = 3;

  private ProduceRequestEncoding() {}

  /**
   * @param producerId < 0: not idempotent (no producer id, no sequences)
   * @param legacy the broker predates kafka_batch: the batches go as encoded_records
   */
  static byte[] encode(long correlationId, Durability durability, long producerId, int producerEpoch,
      List<ProducerBatch> batches, boolean legacy, CRC32C crc) {
    boolean idempotent = producerId >= 0;
    int[] batchSizes = new int[batches.size()];
    int[] bodySizes = new int[batches.size()];
    byte[][] kafka = new byte[batches.size()][];
    int request = CodedOutputStream.computeEnumSize(DURABILITY, durability.getNumber());
    if (idempotent) {
      request += CodedOutputStream.computeInt64Size(PRODUCER_ID, producerId)
          + CodedOutputStream.computeInt32Size(PRODUCER_EPOCH, producerEpoch);
    }
    for (int i = 0; i < batches.size(); i++) {
      ProducerBatch b = batches.get(i);
      int body;
      if (legacy) {
        EncodedRecords records = b.legacyRecords();
        body = CodedOutputStream.computeInt32Size(RECORD_COUNT, records.count())
            + CodedOutputStream.computeInt64Size(BASE_TIMESTAMP, records.baseTimestamp())
            + CodedOutputStream.computeTagSize(RECORDS) + CodedOutputStream.computeUInt32SizeNoTag(records.length())
            + records.length();
      } else {
        kafka[i] = idempotent ? b.kafkaBatch(producerId, (short) producerEpoch, b.baseSequence, crc)
            : b.kafkaBatch(KafkaBatch.NO_PRODUCER_ID, KafkaBatch.NO_PRODUCER_EPOCH, KafkaBatch.NO_SEQUENCE, crc);
        body = b.wireBytes();
      }
      b.sentAsKafka = !legacy;
      bodySizes[i] = body;
      int size = CodedOutputStream.computeStringSize(TOPIC, b.tp.topic())
          + CodedOutputStream.computeInt32Size(PARTITION, b.tp.partition())
          + CodedOutputStream.computeTagSize(legacy ? ENCODED_RECORDS : KAFKA_BATCH)
          + CodedOutputStream.computeUInt32SizeNoTag(body) + body;
      if (idempotent) {
        size += CodedOutputStream.computeInt32Size(BASE_SEQUENCE, b.baseSequence);
      }
      batchSizes[i] = size;
      request += CodedOutputStream.computeTagSize(BATCHES) + CodedOutputStream.computeUInt32SizeNoTag(size) + size;
    }
    int total = CodedOutputStream.computeUInt64Size(CORRELATION_ID, correlationId)
        + CodedOutputStream.computeTagSize(REQUEST) + CodedOutputStream.computeUInt32SizeNoTag(request) + request;
    byte[] out = new byte[total];
    CodedOutputStream o = CodedOutputStream.newInstance(out);
    try {
      o.writeUInt64(CORRELATION_ID, correlationId);
      o.writeTag(REQUEST, WireFormat.WIRETYPE_LENGTH_DELIMITED);
      o.writeUInt32NoTag(request);
      for (int i = 0; i < batches.size(); i++) {
        ProducerBatch b = batches.get(i);
        o.writeTag(BATCHES, WireFormat.WIRETYPE_LENGTH_DELIMITED);
        o.writeUInt32NoTag(batchSizes[i]);
        o.writeString(TOPIC, b.tp.topic());
        o.writeInt32(PARTITION, b.tp.partition());
        if (legacy) {
          EncodedRecords records = b.legacyRecords();
          o.writeTag(ENCODED_RECORDS, WireFormat.WIRETYPE_LENGTH_DELIMITED);
          o.writeUInt32NoTag(bodySizes[i]);
          o.writeInt32(RECORD_COUNT, records.count());
          o.writeInt64(BASE_TIMESTAMP, records.baseTimestamp());
          o.writeByteArray(RECORDS, records.array(), 0, records.length());
        } else {
          o.writeByteArray(KAFKA_BATCH, kafka[i], 0, bodySizes[i]);
        }
        if (idempotent) {
          o.writeInt32(BASE_SEQUENCE, b.baseSequence);
        }
      }
      o.writeEnum(DURABILITY, durability.getNumber());
      if (idempotent) {
        o.writeInt64(PRODUCER_ID, producerId);
        o.writeInt32(PRODUCER_EPOCH, producerEpoch);
      }
      o.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new UncheckedIOException("produce request encoding overran its computed size", e);
    }
    return out;
  }
}
