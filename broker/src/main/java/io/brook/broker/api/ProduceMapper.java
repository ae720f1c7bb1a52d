package io.brook.broker.api;

import io.brook.broker.core.BatchOutcome;
import io.brook.broker.core.BatchToAppend;
import io.brook.broker.core.ProduceCall;
import io.brook.broker.core.ProduceService;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.metrics.ApiObserver;
import io.brook.broker.records.IncomingBatch;
import io.brook.protocol.batch.ByteStringSlice;
import io.brook.protocol.v1.Durability;
import io.brook.protocol.v1.EncodedRecords;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResponse;
import io.brook.protocol.v1.ProduceResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The gRPC side of produce, shared by the unary call and the stream: a ProduceRequest to the core's
 * {@link ProduceCall}, and the core's outcomes back to a ProduceResponse. It checks only what is
 * about the message itself; every record is checked by the core's one validator.
 */
final class ProduceMapper {
  private final ProduceService produce;
  private final ApiObserver observer;
  /** The principal whose requests these are (null with auth off). */
  private final String caller;

  ProduceMapper(ProduceService produce, ApiObserver observer, String caller) {
    this.produce = produce;
    this.observer = observer;
    this.caller = caller;
  }

  /**
   * Appends the request's batches (on the calling thread) and answers when they are as durable as asked.
   *
   * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT when the request as a whole is malformed
   * @throws BrokerException when the core refuses the request whole (NOT_ENOUGH_DISK, NOT_OWNER)
   */
  CompletableFuture<ProduceResponse> handle(ProduceRequest request) {
    if (request.getBatchesCount() == 0) {
      throw Errors.invalid("a produce request needs at least one batch");
    }
    if (request.getDurability() == Durability.UNRECOGNIZED) {
      throw Errors.invalid("unknown durability " + request.getDurabilityValue());
    }
    if (request.hasProducerId() && (request.getProducerEpoch() < 0 || request.getProducerEpoch() > Short.MAX_VALUE)) {
      throw Errors.invalid("producer_epoch must be 0.." + Short.MAX_VALUE + ", got " + request.getProducerEpoch());
    }
    List<BatchToAppend> batches = new ArrayList<>(request.getBatchesCount());
    for (ProduceBatch b : request.getBatchesList()) {
      batches.add(b.getKafkaBatch().isEmpty() ? toCore(b) : KafkaBatchMapping.toCore(request, b));
    }
    ProduceCall call = new ProduceCall(caller, batches, request.getDurability() == Durability.DURABILITY_SYNCED,
        request.hasProducerId() ? new ProduceCall.Producer(request.getProducerId(), (short) request.getProducerEpoch())
            : null);
    return produce.produce(call, this::refused).thenApply(ProduceMapper::toWire);
  }

  /**
   * One batch in the core's form. Encoded records are read in place, in the request's own memory, and
   * copied once: into the log. A batch carrying both forms goes as its encoded form, refused as such.
   */
  private static BatchToAppend toCore(ProduceBatch b) {
    Integer partition = b.hasPartition() ? b.getPartition() : null;
    Integer baseSequence = b.hasBaseSequence() ? b.getBaseSequence() : null;
    if (!b.hasEncodedRecords()) {
      // About what the batch takes in the log, until free space is read.
      return BatchToAppend.of(b.getTopic(), partition, baseSequence,
          () -> new IncomingBatch.Listed(RecordMapper.toLog(b.getRecordsList())), b.getSerializedSize());
    }
    EncodedRecords encoded = b.getEncodedRecords();
    ByteStringSlice section = ByteStringSlice.of(encoded.getRecords());
    IncomingBatch records = new IncomingBatch.Encoded(section.array(), section.offset(), section.length(),
        encoded.getRecordCount(), encoded.getBaseTimestampMs());
    BrokerException both = b.getRecordsCount() == 0 ? null : new BrokerException(BrokerError.INVALID_REQUEST,
        "a batch carries records or encoded_records, not both (" + b.getTopic() + "-" + b.getPartition() + ")");
    // An encoded section is stored as it is: its size is known without walking the records.
    return new BatchToAppend(b.getTopic(), partition, baseSequence, () -> records, both, section.length());
  }

  private static ProduceResponse toWire(List<BatchOutcome> outcomes) {
    ProduceResponse.Builder response = ProduceResponse.newBuilder();
    for (BatchOutcome o : outcomes) {
      ProduceResult.Builder r = ProduceResult.newBuilder()
          .setBatchIndex(o.batchIndex())
          .setTopic(o.topic())
          .setPartition(o.partition())
          .setBaseOffset(o.baseOffset())
          .setRecordCount(o.recordCount())
          .setAppendTimeMs(o.appendTimeMs())
          .setLogStartOffset(o.logStartOffset())
          .setLogAppendTime(o.logAppendTime())
          .setDuplicate(o.duplicate())
          .addAllRecordIndexes(o.recordIndexes());
      if (o.error() != null) {
        r.setErrorCode(Errors.code(o.error())).setErrorMessage(o.errorMessage());
      }
      response.addResults(r);
    }
    return response.setReadsKafkaBatch(true).build();
  }

  private void refused(BrokerError e) {
    observer.refused(Errors.reason(e), Errors.status(e).name());
  }
}
