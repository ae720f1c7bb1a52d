package io.brook.client.producer;

import io.brook.client.errors.BrookException;
import io.brook.client.errors.BrookTimeoutException;
import io.brook.client.errors.ClientClosedException;
import io.brook.client.internal.Backoff;
import io.brook.client.internal.ErrorMapping;
import io.brook.protocol.v1.Durability;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.InitProducerRequest;
import io.brook.protocol.v1.InitProducerResponse;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * The producer's one I/O thread. It takes due batches from the accumulator, sends them as
 * requests on one ProduceStream (pipelined, at most maxInFlightPerPartition per partition), and
 * settles them from the answers, which the stream gives in request order. When the stream fails
 * (the broker restarted, or a request went unanswered for requestTimeoutMs) every batch in flight
 * goes back to the front of its partition and is sent again on a new stream, with the same
 * producer id and sequence numbers, so the broker drops what it had written already.
 */
final class Sender implements Runnable {
  private static final System.Logger LOG = System.getLogger(Sender.class.getName());
  /** Stream failures worth a new stream; any other ends the oldest request's batches (see onStreamError). */
  private static final Set<Status.Code> TRANSIENT = EnumSet.of(Status.Code.UNAVAILABLE, Status.Code.CANCELLED,
      Status.Code.DEADLINE_EXCEEDED, Status.Code.UNKNOWN, Status.Code.INTERNAL, Status.Code.ABORTED);
  private static final long IDLE_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private record SentRequest(List<ProducerBatch> batches, long sentNanos) {}

  private final ProducerConfig config;
  private final RecordAccumulator acc;
  private final TopicMetadata metadata;
  private final Semaphore buffer;
  private final Channel channel;
  private final ProduceServiceGrpc.ProduceServiceBlockingStub blocking;
  private final Durability durability;
  private final String address;
  private final Backoff reconnect;
  private final ProducerMetrics metrics;

  // Guarded by acc.lock.
  private StreamHandler stream;
  private final ArrayDeque<SentRequest> sent = new ArrayDeque<>();
  private long reconnectAtNanos = System.nanoTime();
  private long producerId = -1;
  private int producerEpoch;
  private boolean needEpochBump;
  private boolean running = true;
  private int failedStreams;
  private long nextCorrelationId;
  /** The broker predates ProduceBatch.kafka_batch (it answered one as an empty batch): encoded_records go. */
  private boolean olderBroker;
  /** The sender thread's, for the CRC of each batch it sends. */
  private final CRC32C crc = new CRC32C();
  private volatile BrookException fatal;

  Sender(ProducerConfig config, RecordAccumulator acc, TopicMetadata metadata, Semaphore buffer, Channel channel,
      String address, ProducerMetrics metrics) {
    this.config = config;
    this.acc = acc;
    this.metadata = metadata;
    this.buffer = buffer;
    this.channel = channel;
    this.blocking = ProduceServiceGrpc.newBlockingStub(channel);
    this.durability = config.durability == io.brook.client.Durability.SYNCED
        ? Durability.DURABILITY_SYNCED : Durability.DURABILITY_WRITTEN;
    this.address = address;
    this.reconnect = new Backoff(config.reconnectBackoffMs, config.reconnectBackoffMaxMs);
    this.metrics = metrics;
  }

  /** Set when the producer can send no more (fenced): send throws it. */
  BrookException fatal() {
    return fatal;
  }

  @Override
  public void run() {
    while (true) {
      List<ProducerBatch> expired;
      List<ProducerBatch> batches = List.of();
      StreamHandler target = null;
      StreamHandler toCancel = null;
      boolean init = false;
      acc.lock.lock();
      try {
        if (!running) {
          break;
        }
        long now = System.nanoTime();
        expired = acc.expire(now);
        if (config.idempotence && expired.stream().anyMatch(b -> b.attempts > 0)) {
          needEpochBump = true; // the broker may have written it: later batches must not take its sequence numbers
        }
        SentRequest oldest = sent.peek();
        boolean identityPending = config.idempotence && (producerId < 0 || needEpochBump);
        boolean canSend = !identityPending && (stream != null || now - reconnectAtNanos >= 0);
        if (oldest != null && now - oldest.sentNanos > config.requestTimeoutMs * 1_000_000L && stream != null
            && !stream.cancelled) {
          toCancel = stream;
          stream.cancelled = true; // its onError, soon, puts the batches back
        } else if (identityPending) {
          init = sent.isEmpty() && now - reconnectAtNanos >= 0;
        } else if (canSend) {
          batches = acc.drain(now, config.idempotence);
          if (!batches.isEmpty()) {
            if (stream == null) {
              stream = new StreamHandler();
              RawProduceStream.open(channel, stream);
            }
            sent.add(new SentRequest(batches, now));
            metrics.inFlight(sent.size());
            target = stream;
          }
        }
        if (expired.isEmpty() && batches.isEmpty() && toCancel == null && !init) {
          // Due batches count only when they can go; otherwise an answer (signalled), the end of the
          // reconnect backoff or the request timeout is what to wait for.
          long due = canSend ? acc.nextDueNanos(now, IDLE_WAIT_NANOS) : now + IDLE_WAIT_NANOS;
          if (!canSend && (stream == null || identityPending && sent.isEmpty())) {
            due = Math.min(due, reconnectAtNanos);
          }
          if (oldest != null && !(stream != null && stream.cancelled)) {
            due = Math.min(due, oldest.sentNanos + config.requestTimeoutMs * 1_000_000L + 1);
          }
          if (due - now > 0) {
            acc.wake.awaitNanos(due - now);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        acc.lock.unlock();
      }
      for (ProducerBatch b : expired) {
        fail(b, new BrookTimeoutException("DELIVERY_TIMEOUT", "record not answered within deliveryTimeout ("
            + config.deliveryTimeoutMs + " ms) for " + b.tp + " (broker at " + address + ")"));
      }
      if (toCancel != null) {
        toCancel.requests.cancel("no answer within requestTimeout (" + config.requestTimeoutMs + " ms)", null);
      }
      if (init) {
        initProducer();
      }
      if (target != null) {
        try {
          target.requests.onNext(request(batches));
        } catch (RuntimeException e) {
          // The stream ended meanwhile; its onError handler has put these batches back.
        }
      }
    }
    StreamHandler last;
    acc.lock.lock();
    try {
      last = stream;
      stream = null;
    } finally {
      acc.lock.unlock();
    }
    if (last != null) {
      try {
        last.requests.onCompleted();
      } catch (RuntimeException ignored) {
        // already closed
      }
    }
  }

  /** Stops the thread once it finishes what it is doing; batches still held are the caller's to fail. */
  void stop() {
    acc.lock.lock();
    try {
      running = false;
      acc.wake.signalAll();
    } finally {
      acc.lock.unlock();
    }
  }

  private byte[] request(List<ProducerBatch> batches) {
    long id;
    long pid;
    int epoch;
    boolean legacy;
    acc.lock.lock();
    try {
      id = nextCorrelationId++;
      pid = config.idempotence ? producerId : -1;
      epoch = producerEpoch;
      legacy = olderBroker;
    } finally {
      acc.lock.unlock();
    }
    return ProduceRequestEncoding.encode(id, durability, pid, epoch, batches, legacy, crc);
  }

  /** A producer id at the start; the next epoch of it when the broker forgot it or a sent batch expired. */
  private void initProducer() {
    InitProducerRequest.Builder request = InitProducerRequest.newBuilder();
    acc.lock.lock();
    try {
      if (producerId >= 0) {
        request.setProducerId(producerId);
      }
    } finally {
      acc.lock.unlock();
    }
    try {
      InitProducerResponse identity = blocking.withDeadlineAfter(config.requestTimeoutMs, TimeUnit.MILLISECONDS)
          .initProducer(request.build());
      acc.lock.lock();
      try {
        producerId = identity.getProducerId();
        producerEpoch = identity.getProducerEpoch();
        needEpochBump = false;
        acc.resetSequences();
        acc.wake.signalAll();
      } finally {
        acc.lock.unlock();
      }
    } catch (StatusRuntimeException e) {
      BrookException error = ErrorMapping.fromStatus(e);
      if (!error.isRetriable()) {
        failAll(error);
        return;
      }
      acc.lock.lock();
      try {
        reconnectAtNanos = System.nanoTime() + reconnect.nextDelayMs() * 1_000_000L;
      } finally {
        acc.lock.unlock();
      }
    }
  }

  /** The producer can send no more: every batch fails with the error, and so does every later send. */
  private void failAll(BrookException error) {
    List<ProducerBatch> all;
    acc.lock.lock();
    try {
      fatal = error;
      sent.clear();
      metrics.inFlight(0);
      all = acc.takeAll();
    } finally {
      acc.lock.unlock();
    }
    LOG.log(System.Logger.Level.WARNING, "producer stopped: " + error.getMessage());
    all.forEach(b -> fail(b, error));
  }

  /** Under the lock: the answer for one batch. */
  private void settle(ProducerBatch b, ProduceResult r, boolean readsKafkaBatch, List<Runnable> completions) {
    PartitionQueue pq = acc.queue(b.tp);
    pq.inFlight.remove(b);
    ErrorCode code = r.getErrorCode();
    if (code == ErrorCode.ERROR_CODE_INVALID_RECORD && b.sentAsKafka && !readsKafkaBatch) {
      olderBroker(pq, b, completions);
    } else if (code == ErrorCode.ERROR_CODE_UNSPECIFIED) {
      if (config.idempotence) {
        pq.ackedNextSeq = PartitionQueue.addSequence(b.baseSequence, b.count());
      }
      pq.retryBackoff.reset();
      acc.completing(b);
      metrics.acknowledged(b);
      completions.add(() -> {
        buffer.release(b.bytes()); // first: a future that completes finds its bytes free (bufferUsedBytes)
        b.succeed(r.getBaseOffset(), r.getAppendTimeMs(), r.getLogAppendTime());
      });
    } else {
      BrookException error = ErrorMapping.fromCode(code, r.getErrorMessage());
      switch (code) {
        case ERROR_CODE_UNKNOWN_PRODUCER_ID -> {
          needEpochBump = true; // not written; it goes again under the next epoch, from sequence 0
          retry(pq, b);
        }
        // Behind a batch that failed: numbered afresh once the partition's batches are all back.
        case ERROR_CODE_OUT_OF_ORDER_SEQUENCE -> {
          if (pq.recovering) {
            retry(pq, b);
          } else {
            failLater(pq, b, error, completions);
          }
        }
        case ERROR_CODE_RECORD_TOO_LARGE, ERROR_CODE_BATCH_TOO_LARGE -> {
          if (b.count() > 1) {
            pq.recovering = true; // not written: the halves go first again, with fresh sequence numbers
            pq.returned.addAll(b.split());
            metrics.retried(1);
          } else {
            failLater(pq, b, error, completions);
          }
        }
        case ERROR_CODE_PRODUCER_FENCED -> {
          fatal = error;
          failLater(pq, b, error, completions);
          completions.add(() -> failAll(error));
        }
        default -> {
          if (code == ErrorCode.ERROR_CODE_UNKNOWN_TOPIC || code == ErrorCode.ERROR_CODE_UNKNOWN_PARTITION) {
            metadata.invalidate(b.tp.topic());
          }
          if (error.isRetriable()) {
            retry(pq, b);
          } else {
            failLater(pq, b, error, completions);
          }
        }
      }
    }
    pq.finishRecovery(System.nanoTime());
  }

  /**
   * Under the lock: a broker older than ProduceBatch.kafka_batch dropped the field and refused the
   * batch as empty, so nothing was written. Uncompressed, the batch goes again as encoded_records,
   * as every later one; compressed, it fails, since that broker stores nothing compressed.
   */
  private void olderBroker(PartitionQueue pq, ProducerBatch b, List<Runnable> completions) {
    if (config.compression == CompressionType.NONE) {
      if (!olderBroker) {
        LOG.log(System.Logger.Level.INFO, "the broker at " + address + " does not read Kafka batches (it predates "
            + "ProduceBatch.kafka_batch): sending encoded_records instead");
      }
      olderBroker = true;
      retry(pq, b);
    } else {
      failLater(pq, b, new BrookException("UNSUPPORTED_COMPRESSION", "the broker at " + address + " predates "
          + "compressed batches (ProduceBatch.kafka_batch) and cannot store " + config.compression
          + " batches: upgrade it, or produce with compression NONE"), completions);
    }
  }

  private void retry(PartitionQueue pq, ProducerBatch b) {
    metrics.retried(1);
    pq.recovering = true;
    pq.returned.add(b);
  }

  private void failLater(PartitionQueue pq, ProducerBatch b, BrookException error, List<Runnable> completions) {
    if (config.idempotence) {
      pq.recovering = true; // the batches behind it come back out of order: they are numbered afresh
    }
    acc.completing(b);
    completions.add(() -> fail(b, error));
  }

  private void fail(ProducerBatch b, BrookException error) {
    metrics.failed(b, error.reason());
    buffer.release(b.bytes());
    b.fail(error);
  }

  private void onResponse(StreamHandler from, ProduceStreamResponse response) {
    List<Runnable> completions = new ArrayList<>();
    acc.lock.lock();
    try {
      if (from != stream) {
        return;
      }
      SentRequest request = sent.poll();
      if (request == null) {
        return; // an answer to nothing: the next request's answer will be wrong too, and the timeout reopens
      }
      metrics.answered(request.sentNanos, System.nanoTime(), sent.size());
      reconnect.reset();
      if (!from.answered && failedStreams > 0) {
        LOG.log(System.Logger.Level.INFO, "produce stream to " + address + " back after " + failedStreams
            + " failed attempts");
      }
      from.answered = true;
      failedStreams = 0;
      boolean[] answered = new boolean[request.batches.size()];
      for (ProduceResult r : response.getResponse().getResultsList()) {
        int i = r.getBatchIndex();
        if (i >= 0 && i < answered.length && !answered[i]) {
          answered[i] = true;
          settle(request.batches.get(i), r, response.getResponse().getReadsKafkaBatch(), completions);
        }
      }
      for (int i = 0; i < answered.length; i++) {
        if (!answered[i]) {
          ProducerBatch b = request.batches.get(i);
          PartitionQueue pq = acc.queue(b.tp);
          pq.inFlight.remove(b);
          retry(pq, b);
          pq.finishRecovery(System.nanoTime());
        }
      }
      acc.wake.signalAll();
    } finally {
      acc.lock.unlock();
    }
    completions.forEach(Runnable::run);
  }

  /**
   * The stream ended. A transient failure puts every batch in flight back; any other means the
   * broker refused the oldest unanswered request (it answers in order and ends the stream at the
   * first request it cannot take), so that request's batches fail and the rest go again.
   */
  private void onStreamError(StreamHandler from, Throwable t) {
    Status status = Status.fromThrowable(t);
    boolean transientError = TRANSIENT.contains(status.getCode());
    List<Runnable> completions = new ArrayList<>();
    acc.lock.lock();
    try {
      if (from != stream) {
        return;
      }
      stream = null;
      failedStreams++;
      boolean first = true;
      for (SentRequest request : sent) {
        for (ProducerBatch b : request.batches) {
          PartitionQueue pq = acc.queue(b.tp);
          pq.inFlight.remove(b);
          if (first && !transientError) {
            failLater(pq, b, ErrorMapping.fromThrowable(t), completions);
          } else {
            retry(pq, b);
          }
        }
        first = false;
      }
      sent.clear();
      metrics.inFlight(0);
      long now = System.nanoTime();
      for (PartitionQueue pq : acc.partitionQueues()) {
        pq.finishRecovery(now);
      }
      reconnectAtNanos = now + reconnect.nextDelayMs() * 1_000_000L;
      if (running && from.answered) { // one line per outage, not one per reconnect attempt
        LOG.log(System.Logger.Level.INFO, "produce stream to " + address + " ended (" + status.getCode()
            + (status.getDescription() == null ? "" : ": " + status.getDescription())
            + "); sending again on a new one once the broker is back");
      }
      acc.wake.signalAll();
    } finally {
      acc.lock.unlock();
    }
    completions.forEach(Runnable::run);
  }

  /** Callbacks of one stream; those of a stream already replaced are ignored. */
  private final class StreamHandler implements ClientResponseObserver<byte[], ProduceStreamResponse> {
    ClientCallStreamObserver<byte[]> requests;
    /** Guarded by acc.lock: the broker answered on this stream. */
    boolean answered;
    /** Guarded by acc.lock: cancelled for a request timeout; its onError is on the way. */
    boolean cancelled;

    @Override
    public void beforeStart(ClientCallStreamObserver<byte[]> requestStream) {
      this.requests = requestStream;
    }

    @Override
    public void onNext(ProduceStreamResponse response) {
      onResponse(this, response);
    }

    @Override
    public void onError(Throwable t) {
      onStreamError(this, t);
    }

    @Override
    public void onCompleted() {
      onStreamError(this, Status.UNAVAILABLE.withDescription("the broker closed the produce stream")
          .asRuntimeException());
    }
  }

  /** Fails every batch still held (close ran out of time). */
  void failRemaining(String why) {
    List<ProducerBatch> all;
    acc.lock.lock();
    try {
      sent.clear();
      metrics.inFlight(0);
      all = acc.takeAll();
    } finally {
      acc.lock.unlock();
    }
    ClientClosedException error = new ClientClosedException("CLOSED", why);
    all.forEach(b -> fail(b, error));
  }
}
