package io.brook.broker.topics;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.IncomingBatch;
import io.brook.broker.records.KafkaRecords;
import io.brook.broker.records.ProducerStamp;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.batch.CorruptBatchException;
import io.brook.protocol.batch.KafkaBatch;
import java.util.zip.CRC32C;

/**
 * The Kafka case of {@link BatchValidator}: a record batch v2 as a Kafka producer sent it, checked
 * as Kafka's LogValidator checks it before it is stored as it came. The header (magic 2, batch
 * length = the bytes, count and last offset delta, no transactional or control bit, producer fields
 * whole, create-time timestamps), the CRC-32C, the size against the topic's max.message.bytes (the
 * batch as stored, after compression, as Kafka counts it) for a batch of the Kafka door, then every
 * record, decompressed once within the bound Brook's readers keep: offset deltas 0 to count - 1,
 * every length, no negative timestamp, and for a batch of Brook's producers (gRPC's kafka_batch)
 * each record against max.record.bytes instead, the rule Brook's clients know.
 */
final class KafkaBatchValidation {
  private KafkaBatchValidation() {}

  static KafkaRecords check(Topic topic, String where, IncomingBatch.Kafka batch, int maxBatchRecords) {
    byte[] b = batch.array();
    int from = batch.offset();
    int length = batch.length();
    String what = "the Kafka batch for " + where;
    try {
      KafkaBatch.checkHeader(b, from, length);
    } catch (CorruptBatchException e) {
      throw invalid(what + " is malformed: " + e.getMessage());
    }
    int attributes = KafkaBatch.attributes(b, from);
    if ((attributes & (KafkaBatch.TRANSACTIONAL | KafkaBatch.CONTROL)) != 0) {
      throw invalid(what + " is " + ((attributes & KafkaBatch.CONTROL) != 0 ? "a control batch" : "transactional")
          + ": Brook does not support transactions");
    }
    if ((attributes & KafkaBatch.TIMESTAMP_TYPE) != 0) { // only a broker sets it (Kafka's producer never does)
      throw invalid(what + " has the log-append-time bit set: a producer sends create times, the topic's "
          + TopicConfig.TIMESTAMP_TYPE + " decides");
    }
    if (!KafkaBatch.crcMatches(b, from, length, new CRC32C())) {
      throw invalid(what + " fails its CRC-32C (corrupt in transit)");
    }
    int count = KafkaBatch.recordCount(b, from);
    if (count == 0) {
      throw invalid("empty batch for " + where + ": a Kafka batch with no records; send at least one record");
    }
    if (count > maxBatchRecords) {
      throw new BrokerException(BrokerError.BATCH_TOO_LARGE, "batch for " + where + " has " + count
          + " records; the broker takes at most " + maxBatchRecords + " (max.batch.records)");
    }
    if (KafkaBatch.lastOffsetDelta(b, from) != count - 1) {
      throw invalid(what + " declares " + count + " records but a last offset delta of "
          + KafkaBatch.lastOffsetDelta(b, from) + " (they must be " + (count - 1) + ")");
    }
    int limit = topic.config().maxMessageBytes();
    boolean perRecord = batch.limit() == IncomingBatch.Kafka.SizeLimit.RECORD;
    if (!perRecord && length > limit) {
      throw new BrokerException(BrokerError.RECORD_TOO_LARGE, "the Kafka batch for " + where + " is " + length
          + " bytes; topic " + topic.name() + " takes at most " + limit + " (" + TopicConfig.MAX_MESSAGE_BYTES + ")");
    }
    ProducerStamp producer = producer(b, from, what);
    BatchReader in = new BatchReader(); // its default bound on decompressed records is every reader's
    long maxTimestamp = Long.MIN_VALUE;
    long payload = 0;
    int i = 0;
    try {
      in.wrapKafka(b, from, length);
      for (; in.next(); i++) {
        if (in.offset() - in.baseOffset() != i) {
          throw invalid("record " + i + " of " + what + " has offset delta " + (in.offset() - in.baseOffset())
              + "; the deltas must run 0 to " + (count - 1));
        }
        if (in.timestamp() < 0) {
          throw invalid("record " + i + " of " + what + " has a negative timestamp " + in.timestamp());
        }
        if (perRecord && in.payloadSize() > topic.config().maxRecordBytes()) {
          throw new BrokerException(BrokerError.RECORD_TOO_LARGE, "record " + i + " of the batch for " + where
              + " is " + in.payloadSize() + " bytes; topic " + topic.name() + " takes at most "
              + topic.config().maxRecordBytes() + " (" + TopicConfig.MAX_RECORD_BYTES + ")");
        }
        maxTimestamp = Math.max(maxTimestamp, in.timestamp());
        payload += in.payloadSize();
      }
    } catch (CorruptBatchException e) {
      if (e.overLimit()) { // a sound batch too large to read back: a size refusal, so clients split and retry
        throw new BrokerException(BrokerError.RECORD_TOO_LARGE, e.getMessage() + "; send smaller batches");
      }
      throw invalid(what + " does not hold " + count + " well-formed records: " + e.getMessage());
    }
    return new KafkaRecords(b, from, length, count, maxTimestamp, payload, producer);
  }

  /** The idempotent producer's fields: all three, or none (-1), as Kafka's producer writes them. */
  private static ProducerStamp producer(byte[] b, int from, String what) {
    long id = KafkaBatch.producerId(b, from);
    short epoch = KafkaBatch.producerEpoch(b, from);
    int sequence = KafkaBatch.baseSequence(b, from);
    if (id < 0) {
      return ProducerStamp.NONE;
    }
    if (epoch < 0 || sequence < 0) {
      throw invalid(what + " has producer id " + id + " with epoch " + epoch + " and base sequence " + sequence
          + ": an idempotent batch needs both >= 0");
    }
    return new ProducerStamp(id, epoch, sequence);
  }

  private static BrokerException invalid(String message) {
    return new BrokerException(BrokerError.INVALID_RECORD, message);
  }
}
