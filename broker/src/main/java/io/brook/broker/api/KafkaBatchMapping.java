package io.brook.broker.api;

import io.brook.broker.core.BatchToAppend;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.IncomingBatch;
import io.brook.protocol.batch.ByteStringSlice;
import io.brook.protocol.batch.KafkaBatch;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;

/**
 * A gRPC batch that carries {@code kafka_batch} (D49): the Kafka record batch v2 goes to the core as
 * {@link IncomingBatch.Kafka}, read in place in the request's memory, checked by the validator as
 * Kafka's broker checks it and stored as it came. What only the gRPC message can say is checked
 * here: one form per batch, and producer fields in the Kafka header that are the request's. The
 * core appends an idempotent request's batch under the request's producer id, epoch and the batch's
 * base_sequence, and the stored header keeps the batch's own: they must be one and the same.
 */
final class KafkaBatchMapping {
  private KafkaBatchMapping() {}

  static BatchToAppend toCore(ProduceRequest request, ProduceBatch b) {
    Integer partition = b.hasPartition() ? b.getPartition() : null;
    Integer baseSequence = b.hasBaseSequence() ? b.getBaseSequence() : null;
    ByteStringSlice bytes = ByteStringSlice.of(b.getKafkaBatch());
    // Brook's producers know Brook's per-record limit, as for records and encoded_records (D37, D49).
    IncomingBatch batch = new IncomingBatch.Kafka(bytes.array(), bytes.offset(), bytes.length(),
        IncomingBatch.Kafka.SizeLimit.RECORD);
    String where = b.getTopic() + (partition == null ? "" : "-" + partition);
    BrokerException malformed = null;
    if (b.getRecordsCount() > 0 || b.hasEncodedRecords()) {
      malformed = invalid("a batch carries one of records, encoded_records and kafka_batch, not several (" + where + ")");
    } else if (bytes.length() >= KafkaBatch.HEADER_SIZE) { // a shorter one is malformed: the validator says so
      malformed = producerDisagreement(request, b, bytes, where);
    }
    // A Kafka batch is stored as it came: its size is what it takes in the log.
    return new BatchToAppend(b.getTopic(), partition, baseSequence, () -> batch, malformed, bytes.length());
  }

  /**
   * Null when the header's producer id, epoch and base sequence are the request's producer_id,
   * producer_epoch and the batch's base_sequence, or all -1 for a request without producer_id.
   */
  private static BrokerException producerDisagreement(ProduceRequest request, ProduceBatch b, ByteStringSlice bytes,
      String where) {
    long id = KafkaBatch.producerId(bytes.array(), bytes.offset());
    short epoch = KafkaBatch.producerEpoch(bytes.array(), bytes.offset());
    int sequence = KafkaBatch.baseSequence(bytes.array(), bytes.offset());
    String header = "producer id " + id + ", epoch " + epoch + ", base sequence " + sequence;
    if (!request.hasProducerId()) {
      if (id != KafkaBatch.NO_PRODUCER_ID || epoch != KafkaBatch.NO_PRODUCER_EPOCH
          || sequence != KafkaBatch.NO_SEQUENCE) {
        return invalid("the kafka_batch for " + where + " has " + header + " in its header but the request has no "
            + "producer_id: a batch without a producer has -1 for all three");
      }
      return null;
    }
    if (!b.hasBaseSequence()) {
      return null; // the core refuses an idempotent batch without base_sequence, and says so
    }
    if (id != request.getProducerId() || epoch != request.getProducerEpoch() || sequence != b.getBaseSequence()) {
      return invalid("the kafka_batch for " + where + " has " + header + " in its header but the request has "
          + "producer_id " + request.getProducerId() + ", producer_epoch " + request.getProducerEpoch()
          + " and base_sequence " + b.getBaseSequence() + ": they must be the same");
    }
    return null;
  }

  private static BrokerException invalid(String message) {
    return new BrokerException(BrokerError.INVALID_REQUEST, message);
  }
}
