package io.brook.broker.api;

import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskWrite;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.storage.AppendResult;
import io.brook.broker.records.EncodedRecords;
import io.brook.broker.records.LogRecord;
import io.brook.broker.records.ProducerStamp;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Topic;
import io.brook.broker.topics.TopicManager;
import io.brook.protocol.Partitioner;
import io.brook.protocol.batch.ByteStringSlice;
import io.brook.protocol.v1.Durability;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResponse;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.Record;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Appends the batches of one produce request and builds its answer; shared by the unary call and
 * the stream. A bad batch fails alone (its result carries the error); a bad request fails whole.
 */
final class ProduceHandler {
  private final TopicManager topics;
  private final ApiSettings settings;
  private final DiskGuard disk;
  /** The principal whose requests these are (null with auth off): it may use only its own producer ids. */
  private final String caller;

  ProduceHandler(TopicManager topics, ApiSettings settings, DiskGuard disk) {
    this(topics, settings, disk, null);
  }

  private ProduceHandler(TopicManager topics, ApiSettings settings, DiskGuard disk, String caller) {
    this.topics = topics;
    this.settings = settings;
    this.disk = disk;
    this.caller = caller;
  }

  /** This handler for the requests of one principal (a call, or every request of a stream). */
  ProduceHandler forCaller(String principal) {
    return principal == null ? this : new ProduceHandler(topics, settings, disk, principal);
  }

  /**
   * Appends at once (on the calling thread); the answer completes then for WRITTEN, and after the
   * group-commit force of every partition written for SYNCED.
   *
   * @throws io.grpc.StatusRuntimeException INVALID_ARGUMENT when the request as a whole is malformed
   * @throws BrokerException NOT_ENOUGH_DISK (RESOURCE_EXHAUSTED) when free disk is already under the threshold,
   *     NOT_OWNER (PERMISSION_DENIED) for another principal's producer id
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
    if (request.hasProducerId()) { // another principal's id refuses the request whole, as a missing permission does
      settings.producerIds().checkOwner(request.getProducerId(), caller);
    }
    disk.check(DiskWrite.PRODUCE); // a disk already low refuses the request whole
    ProduceResponse.Builder response = ProduceResponse.newBuilder();
    Set<Partition> written = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    long now = settings.clock().millis();
    for (int i = 0; i < request.getBatchesCount(); i++) {
      ProduceBatch batch = request.getBatches(i);
      try {
        if (i > 0) {
          disk.check(DiskWrite.PRODUCE); // the disk ran low part-way through: the later batches fail alone
        }
        if (request.hasProducerId()) {
          appendIdempotent(i, batch, request.getProducerId(), (short) request.getProducerEpoch(), now, response,
              written);
        } else {
          appendBatch(i, batch, now, response, written);
        }
        // About what the batch takes in the log, until free space is read; an encoded batch's section
        // is stored as it is, and its size is known without walking the records.
        disk.wrote(batch.hasEncodedRecords() ? batch.getEncodedRecords().getRecords().size() : batch.getSerializedSize());
      } catch (BrokerException e) {
        refused(e);
        response.addResults(ProduceResult.newBuilder()
            .setBatchIndex(i)
            .setTopic(batch.getTopic())
            .setPartition(batch.hasPartition() ? batch.getPartition() : -1)
            .setErrorCode(Errors.code(e.error()))
            .setErrorMessage(e.getMessage()));
      }
    }
    if (request.getDurability() != Durability.DURABILITY_SYNCED || written.isEmpty()) {
      return CompletableFuture.completedFuture(response.build());
    }
    List<CompletableFuture<Void>> forces = new ArrayList<>();
    for (Partition p : written) {
      forces.add(settings.flusher().force(p).exceptionally(failure -> {
        BrokerException why = failure instanceof BrokerException b ? b
            : new BrokerException(BrokerError.STORAGE_ERROR, failure.getMessage());
        refused(why);
        synchronized (response) { // written but not forced: that partition's results say so
          failResultsOf(response, p, why);
        }
        return null;
      }));
    }
    return CompletableFuture.allOf(forces.toArray(CompletableFuture[]::new)).thenApply(v -> {
      synchronized (response) {
        return response.build();
      }
    });
  }

  /**
   * An idempotent producer's batch: the identity is checked against the broker's registry (a fenced
   * epoch fails even on a partition the new instance has not written yet), the sequence against the
   * partition's producer state.
   */
  private void appendIdempotent(int index, ProduceBatch batch, long producerId, short epoch, long now,
      ProduceResponse.Builder response, Set<Partition> written) {
    if (!batch.hasPartition() || !batch.hasBaseSequence()) {
      throw new BrokerException(BrokerError.INVALID_REQUEST,
          "an idempotent producer's batch must name its partition and carry base_sequence");
    }
    if (batch.getBaseSequence() < 0) {
      throw new BrokerException(BrokerError.INVALID_REQUEST,
          "base_sequence must be >= 0, got " + batch.getBaseSequence());
    }
    settings.producerIds().checkCurrent(producerId, epoch, caller, now);
    Topic topic = topics.get(batch.getTopic());
    Partition p = topic.partition(batch.getPartition());
    ProducerStamp stamp = new ProducerStamp(producerId, epoch, batch.getBaseSequence());
    Partition.IdempotentAppend r = batch.hasEncodedRecords()
        ? p.appendIdempotent(checkEncoded(topic, p, batch), now, stamp)
        : p.appendIdempotent(RecordMapper.toLog(batch.getRecordsList()), now, settings.maxBatchRecords(), stamp);
    written.add(p); // a retried SYNCED batch is forced too: its first answer may never have arrived
    response.addResults(result(index, p, r.result()).setDuplicate(r.duplicate()));
  }

  /**
   * Checks a batch of {@code encoded_records}: it names its partition and holds no listed records,
   * and its section holds exactly the records it says (Topic.checkEncoded). The section is read in
   * place, in the request's own memory, and copied once: into the log.
   */
  private EncodedRecords checkEncoded(Topic topic, Partition p, ProduceBatch batch) {
    if (batch.getRecordsCount() > 0) {
      throw new BrokerException(BrokerError.INVALID_REQUEST,
          "a batch carries records or encoded_records, not both (" + p.name() + ")");
    }
    io.brook.protocol.v1.EncodedRecords encoded = batch.getEncodedRecords();
    ByteStringSlice section = ByteStringSlice.of(encoded.getRecords());
    return topic.checkEncoded(section.array(), section.offset(), section.length(), encoded.getRecordCount(),
        encoded.getBaseTimestampMs(), settings.maxBatchRecords(), p.name());
  }

  private void appendBatch(int index, ProduceBatch batch, long now, ProduceResponse.Builder response,
      Set<Partition> written) {
    Topic topic = topics.get(batch.getTopic());
    if (batch.hasEncodedRecords()) {
      if (!batch.hasPartition()) {
        throw new BrokerException(BrokerError.INVALID_REQUEST,
            "a batch of encoded_records must name its partition: the broker partitions listed records only");
      }
      Partition p = topic.partition(batch.getPartition());
      AppendResult r = p.append(checkEncoded(topic, p, batch), now);
      written.add(p);
      response.addResults(result(index, p, r));
      return;
    }
    List<LogRecord> records = RecordMapper.toLog(batch.getRecordsList());
    if (batch.hasPartition()) {
      Partition p = topic.partition(batch.getPartition());
      AppendResult r = p.append(records, now, settings.maxBatchRecords()); // checks the records itself
      written.add(p);
      response.addResults(result(index, p, r));
      return;
    }
    // Checked whole before it is split, so a bad record refuses the batch, never half of it.
    topic.checkRecords(records, settings.maxBatchRecords(), topic.name());
    // The broker partitions: keyed records by murmur2 like Kafka, keyless ones all to one partition.
    int partitions = topic.partitionCount();
    int keyless = -1;
    Map<Integer, List<Integer>> indexesByPartition = new LinkedHashMap<>();
    for (int i = 0; i < batch.getRecordsCount(); i++) {
      Record r = batch.getRecords(i);
      int p;
      if (r.hasKey()) {
        p = Partitioner.partitionForKey(r.getKey().toByteArray(), partitions);
      } else {
        if (keyless < 0) {
          keyless = topic.nextKeylessPartition();
        }
        p = keyless;
      }
      indexesByPartition.computeIfAbsent(p, k -> new ArrayList<>()).add(i);
    }
    for (Map.Entry<Integer, List<Integer>> e : indexesByPartition.entrySet()) {
      Partition p = topic.partition(e.getKey());
      List<LogRecord> part = new ArrayList<>(e.getValue().size());
      for (int i : e.getValue()) {
        part.add(records.get(i));
      }
      try {
        AppendResult r = p.append(part, now, settings.maxBatchRecords());
        written.add(p);
        response.addResults(result(index, p, r).addAllRecordIndexes(e.getValue()));
      } catch (BrokerException ex) {
        refused(ex);
        response.addResults(ProduceResult.newBuilder().setBatchIndex(index).setTopic(topic.name())
            .setPartition(p.index()).setErrorCode(Errors.code(ex.error())).setErrorMessage(ex.getMessage())
            .addAllRecordIndexes(e.getValue()));
      }
    }
  }

  private static void failResultsOf(ProduceResponse.Builder response, Partition p, BrokerException e) {
    for (ProduceResult.Builder r : response.getResultsBuilderList()) {
      if (r.getErrorCodeValue() == 0 && r.getTopic().equals(p.topic().name()) && r.getPartition() == p.index()) {
        r.setErrorCode(Errors.code(e.error()))
            .setErrorMessage("written but not forced to the device (SYNCED): " + e.getMessage());
      }
    }
  }

  private static ProduceResult.Builder result(int index, Partition p, AppendResult r) {
    return ProduceResult.newBuilder()
        .setBatchIndex(index)
        .setTopic(p.topic().name())
        .setPartition(p.index())
        .setBaseOffset(r.baseOffset())
        .setRecordCount(r.recordCount())
        .setAppendTimeMs(r.appendTimeMs())
        .setLogStartOffset(r.logStartOffset())
        .setLogAppendTime(p.topic().config().logAppendTime());
  }

  private void refused(BrokerException e) {
    settings.observer().refused(Errors.reason(e.error()), Errors.status(e.error()).name());
  }
}
