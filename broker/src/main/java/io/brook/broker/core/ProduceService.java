package io.brook.broker.core;

import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskWrite;
import io.brook.broker.durability.Flusher;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.producers.ProducerIds;
import io.brook.broker.records.IncomingBatch;
import io.brook.broker.records.LogRecord;
import io.brook.broker.records.ProducerStamp;
import io.brook.broker.storage.AppendResult;
import io.brook.broker.topics.BatchValidator;
import io.brook.broker.topics.BatchValidator.ValidatedBatch;
import io.brook.broker.topics.Partition;
import io.brook.broker.topics.Topic;
import io.brook.broker.topics.TopicManager;
import io.brook.protocol.Partitioner;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Produce, for every door: appends the batches of one request, each checked once by the
 * {@link BatchValidator}, and answers once they are as durable as asked. A bad batch fails alone (its
 * outcome carries the error); a request the broker cannot take at all fails whole (thrown).
 */
public final class ProduceService {
  private final TopicManager topics;
  private final BatchValidator validator;
  private final DiskGuard disk;
  private final Flusher flusher;
  private final ProducerIds producerIds;
  private final InstantSource clock;

  public ProduceService(TopicManager topics, BatchValidator validator, DiskGuard disk, Flusher flusher,
      ProducerIds producerIds, InstantSource clock) {
    this.topics = topics;
    this.validator = validator;
    this.disk = disk;
    this.flusher = flusher;
    this.producerIds = producerIds;
    this.clock = clock;
  }

  /**
   * Hands an idempotent producer its identity: a new id at epoch 0, or for an id it had, the next
   * epoch (which fences the instance before it).
   *
   * @param producerId null for a new producer
   */
  public ProduceCall.Producer initProducer(String caller, Long producerId) {
    long now = clock.millis();
    if (producerId != null) {
      return new ProduceCall.Producer(producerId, producerIds.bump(producerId, caller, now));
    }
    return new ProduceCall.Producer(producerIds.allocate(caller, now), (short) 0);
  }

  /**
   * Appends at once (on the calling thread); the answer completes then, or for a synced call after the
   * group-commit force of every partition written.
   *
   * @param refused told of each batch refused inside the answer (and of each failed force), for metrics
   * @return one outcome per batch, or per part of a batch the broker partitioned, in request order
   * @throws BrokerException NOT_ENOUGH_DISK when free disk is already under the threshold, NOT_OWNER
   *     for another principal's producer id
   */
  public CompletableFuture<List<BatchOutcome>> produce(ProduceCall call, Consumer<BrokerError> refused) {
    if (call.producer() != null) { // another principal's id refuses the request whole, as a missing permission does
      producerIds.checkOwner(call.producer().id(), call.caller());
    }
    disk.check(DiskWrite.PRODUCE); // a disk already low refuses the request whole
    List<BatchOutcome> outcomes = new ArrayList<>();
    Set<Partition> written = Collections.newSetFromMap(new IdentityHashMap<>());
    long now = clock.millis();
    for (int i = 0; i < call.batches().size(); i++) {
      BatchToAppend batch = call.batches().get(i);
      try {
        if (i > 0) {
          disk.check(DiskWrite.PRODUCE); // the disk ran low part-way through: the later batches fail alone
        }
        if (call.producer() != null) {
          outcomes.add(appendIdempotent(i, batch, call, now, written));
        } else {
          appendBatch(i, batch, now, outcomes, written, refused);
        }
        disk.wrote(batch.sizeBytes());
      } catch (BrokerException e) {
        refused.accept(e.error());
        outcomes.add(BatchOutcome.refused(i, batch.topic(), batch.partition() != null ? batch.partition() : -1,
            List.of(), e.error(), e.getMessage()));
      }
    }
    if (!call.synced() || written.isEmpty()) {
      return CompletableFuture.completedFuture(outcomes);
    }
    return forced(written, outcomes, refused);
  }

  /**
   * An idempotent producer's batch: the identity is checked against the broker's registry (a fenced
   * epoch fails even on a partition the new instance has not written yet), the sequence against the
   * partition's producer state.
   */
  private BatchOutcome appendIdempotent(int index, BatchToAppend batch, ProduceCall call, long now,
      Set<Partition> written) {
    if (batch.partition() == null || batch.baseSequence() == null) {
      throw new BrokerException(BrokerError.INVALID_REQUEST,
          "an idempotent producer's batch must name its partition and carry base_sequence");
    }
    if (batch.baseSequence() < 0) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, "base_sequence must be >= 0, got " + batch.baseSequence());
    }
    producerIds.checkCurrent(call.producer().id(), call.producer().epoch(), batch.baseSequence(), call.caller(), now);
    Topic topic = topics.get(batch.topic());
    Partition p = topic.partition(batch.partition());
    ValidatedBatch valid = validate(topic, p.name(), batch, batch.form().get());
    Partition.IdempotentAppend r = p.appendIdempotent(valid, now,
        new ProducerStamp(call.producer().id(), call.producer().epoch(), batch.baseSequence()));
    written.add(p); // a retried synced batch is forced too: its first answer may never have arrived
    return written(index, p, r.result(), r.duplicate(), List.of());
  }

  private void appendBatch(int index, BatchToAppend batch, long now, List<BatchOutcome> outcomes,
      Set<Partition> written, Consumer<BrokerError> refused) {
    Topic topic = topics.get(batch.topic());
    IncomingBatch records = batch.form().get(); // made here, one batch at a time
    if (batch.partition() == null && !(records instanceof IncomingBatch.Listed)) {
      throw new BrokerException(BrokerError.INVALID_REQUEST,
          "a batch of encoded_records must name its partition: the broker partitions listed records only");
    }
    if (batch.partition() != null) {
      Partition p = topic.partition(batch.partition());
      AppendResult r = p.append(validate(topic, p.name(), batch, records), now);
      written.add(p);
      outcomes.add(written(index, p, r, false, List.of()));
      return;
    }
    // Checked whole before it is split, so a bad record refuses the batch, never half of it.
    ValidatedBatch whole = validate(topic, topic.name(), batch, records);
    for (Map.Entry<Integer, List<Integer>> e : byPartition(topic, whole.records()).entrySet()) {
      Partition p = topic.partition(e.getKey());
      try {
        AppendResult r = p.append(whole.part(e.getValue()), now);
        written.add(p);
        outcomes.add(written(index, p, r, false, e.getValue()));
      } catch (BrokerException ex) {
        refused.accept(ex.error());
        outcomes.add(BatchOutcome.refused(index, topic.name(), p.index(), e.getValue(), ex.error(), ex.getMessage()));
      }
    }
  }

  private ValidatedBatch validate(Topic topic, String where, BatchToAppend batch, IncomingBatch records) {
    if (batch.undecodable() != null) {
      throw batch.undecodable();
    }
    return validator.validate(topic, where, records);
  }

  /** Where the broker puts each record: keyed ones by murmur2 like Kafka, keyless ones all to one partition. */
  private static Map<Integer, List<Integer>> byPartition(Topic topic, List<LogRecord> records) {
    int partitions = topic.partitionCount();
    int keyless = -1;
    Map<Integer, List<Integer>> indexesByPartition = new LinkedHashMap<>();
    for (int i = 0; i < records.size(); i++) {
      LogRecord r = records.get(i);
      int p;
      if (r.key() != null) {
        p = Partitioner.partitionForKey(r.key(), partitions);
      } else {
        if (keyless < 0) {
          keyless = topic.nextKeylessPartition();
        }
        p = keyless;
      }
      indexesByPartition.computeIfAbsent(p, k -> new ArrayList<>()).add(i);
    }
    return indexesByPartition;
  }

  /** Completes once every partition written is forced; a failed force fails that partition's outcomes. */
  private CompletableFuture<List<BatchOutcome>> forced(Set<Partition> written, List<BatchOutcome> outcomes,
      Consumer<BrokerError> refused) {
    List<CompletableFuture<Void>> forces = new ArrayList<>();
    for (Partition p : written) {
      forces.add(flusher.force(p).exceptionally(failure -> {
        BrokerException why = failure instanceof BrokerException b ? b
            : new BrokerException(BrokerError.STORAGE_ERROR, failure.getMessage());
        refused.accept(why.error());
        synchronized (outcomes) { // written but not forced: that partition's outcomes say so
          outcomes.replaceAll(o -> o.error() == null && o.topic().equals(p.topic().name()) && o.partition() == p.index()
              ? o.notForced(why.error(), why.getMessage()) : o);
        }
        return null;
      }));
    }
    return CompletableFuture.allOf(forces.toArray(CompletableFuture[]::new)).thenApply(v -> {
      synchronized (outcomes) {
        return List.copyOf(outcomes);
      }
    });
  }

  private static BatchOutcome written(int index, Partition p, AppendResult r, boolean duplicate,
      List<Integer> recordIndexes) {
    return new BatchOutcome(index, p.topic().name(), p.index(), r.baseOffset(), r.recordCount(), r.appendTimeMs(),
        r.logStartOffset(), p.topic().config().logAppendTime(), duplicate, recordIndexes, null, null);
  }
}
