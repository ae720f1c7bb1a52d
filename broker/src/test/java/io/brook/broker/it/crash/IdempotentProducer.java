package io.brook.broker.it.crash;

import com.google.protobuf.ByteString;
import io.brook.protocol.v1.Durability;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.InitProducerRequest;
import io.brook.protocol.v1.InitProducerResponse;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.brook.protocol.v1.Record;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * An idempotent producer (InitProducer, then per partition a base sequence per batch), unary or
 * pipelining up to 5 batches on a ProduceStream. A batch not answered before a kill is sent again
 * after the restart with the same sequence, until it is answered: the broker must answer a batch it
 * already holds as a duplicate at its first offsets, never write it twice.
 */
final class IdempotentProducer extends Worker {
  static final int MAX_IN_FLIGHT = 5;

  private final int index;
  private final boolean streaming;
  private final String topic;
  private final int partitions;
  private final long seed;
  private final Ledger ledger;
  private final CrashStats stats;
  private final SplittableRandom random;
  private final Deque<Pending> pending = new ArrayDeque<>();
  private final int[] sequences;
  private long producerId = -1;
  private int epoch;
  private long records;
  private long correlation;

  /** A batch created once and sent as often as needed, always the same. */
  private static final class Pending {
    final int partition;
    final List<String> keys;
    final ProduceRequest request;
    long correlationId;
    int sends;

    Pending(int partition, List<String> keys, ProduceRequest request) {
      this.partition = partition;
      this.keys = keys;
      this.request = request;
    }
  }

  IdempotentProducer(int index, boolean streaming, String topic, int partitions, long seed, Ledger ledger,
      CrashStats stats, BrokerLink link, Violations violations) {
    super("producer-" + index + (streaming ? "-stream" : "-unary"), link, violations);
    this.index = index;
    this.streaming = streaming;
    this.topic = topic;
    this.partitions = partitions;
    this.seed = seed;
    this.ledger = ledger;
    this.stats = stats;
    this.random = new SplittableRandom(seed * 1_000_003L + index);
    this.sequences = new int[partitions];
  }

  @Override
  void work() throws InterruptedException {
    while (true) {
      ManagedChannel ch = link.channel();
      if (ch == null || (draining() && pending.isEmpty())) {
        return;
      }
      try {
        if (producerId < 0) {
          init(ch, null);
        }
        if (streaming) {
          streamRound(ch);
        } else {
          unaryRound(ch);
        }
      } catch (StatusRuntimeException e) {
        failed(e);
      }
    }
  }

  private void init(ManagedChannel ch, Long bump) {
    InitProducerRequest.Builder req = InitProducerRequest.newBuilder();
    if (bump != null) {
      req.setProducerId(bump);
    }
    InitProducerResponse r = ProduceServiceGrpc.newBlockingStub(ch).withDeadlineAfter(20, TimeUnit.SECONDS)
        .initProducer(req.build());
    producerId = r.getProducerId();
    epoch = r.getProducerEpoch();
    java.util.Arrays.fill(sequences, 0);
  }

  private Pending next() {
    int partition = random.nextInt(partitions);
    int count = 1 + random.nextInt(random.nextInt(10) == 0 ? 200 : 20);
    ProduceBatch.Builder b = ProduceBatch.newBuilder().setTopic(topic).setPartition(partition)
        .setBaseSequence(sequences[partition]);
    List<String> keys = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      String key = Payloads.key(index, records++);
      keys.add(key);
      b.addRecords(Record.newBuilder().setKey(ByteString.copyFrom(key, StandardCharsets.UTF_8))
          .setValue(ByteString.copyFrom(Payloads.value(seed, key))));
    }
    sequences[partition] += count;
    Durability d = random.nextInt(4) == 0 ? Durability.DURABILITY_SYNCED : Durability.DURABILITY_WRITTEN;
    return new Pending(partition, keys, ProduceRequest.newBuilder().setProducerId(producerId)
        .setProducerEpoch(epoch).setDurability(d).addBatches(b).build());
  }

  private void unaryRound(ManagedChannel ch) throws InterruptedException {
    if (pending.isEmpty()) {
      pending.add(next());
    }
    Pending b = pending.peek();
    sent(b);
    ProduceResult r = ProduceServiceGrpc.newBlockingStub(ch).withDeadlineAfter(20, TimeUnit.SECONDS)
        .produce(b.request).getResults(0);
    succeeded();
    pending.poll();
    answered(ch, b, r);
    Thread.sleep(pause());
  }

  private void streamRound(ManagedChannel ch) throws InterruptedException {
    BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    StreamObserver<ProduceStreamRequest> out = ProduceServiceGrpc.newStub(ch).produceStream(new StreamObserver<>() {
      @Override
      public void onNext(ProduceStreamResponse r) {
        events.add(r);
      }

      @Override
      public void onError(Throwable t) {
        events.add(t);
      }

      @Override
      public void onCompleted() {
        events.add("completed");
      }
    });
    for (Pending b : pending) { // whatever the last stream left unanswered, in order, same sequences
      send(out, b);
    }
    long nextSendAt = 0;
    try {
      while (link.isUp()) {
        if (!draining() && pending.size() < MAX_IN_FLIGHT && System.currentTimeMillis() >= nextSendAt) {
          Pending b = next();
          pending.add(b);
          send(out, b);
          nextSendAt = System.currentTimeMillis() + pause();
        }
        if (draining() && pending.isEmpty()) {
          return;
        }
        Object e = events.poll(5, TimeUnit.MILLISECONDS);
        if (e == null) {
          continue;
        }
        if (!(e instanceof ProduceStreamResponse r)) {
          if (e instanceof StatusRuntimeException s) {
            failed(s);
          } else if (e instanceof Throwable t) {
            failed(Status.fromThrowable(t).asRuntimeException());
          }
          return; // the stream ended: the next round resends what is pending
        }
        succeeded();
        Pending head = pending.peek();
        if (head == null || head.correlationId != r.getCorrelationId()) {
          violations.add(name + ": answer for correlation id " + r.getCorrelationId() + " out of order (expected "
              + (head == null ? "none" : head.correlationId) + ")");
          return;
        }
        pending.poll();
        answered(ch, head, r.getResponse().getResults(0));
      }
    } finally {
      out.onError(Status.CANCELLED.withDescription("round over").asRuntimeException());
    }
  }

  private void send(StreamObserver<ProduceStreamRequest> out, Pending b) {
    sent(b);
    b.correlationId = ++correlation;
    out.onNext(ProduceStreamRequest.newBuilder().setCorrelationId(b.correlationId).setRequest(b.request).build());
  }

  private void sent(Pending b) {
    if (b.sends++ == 0) {
      ledger.sending(b.keys);
    } else {
      stats.resentBatches.incrementAndGet();
    }
  }

  private void answered(ManagedChannel ch, Pending b, ProduceResult r) {
    if (r.getErrorCode() != ErrorCode.ERROR_CODE_UNSPECIFIED || r.getRecordCount() != b.keys.size()
        || r.getPartition() != b.partition) {
      violations.add(name + ": batch of " + b.keys.size() + " records (" + b.keys.get(0) + "..) to partition "
          + b.partition + " answered " + r.getErrorCode() + " " + r.getErrorMessage() + ", count "
          + r.getRecordCount() + ", partition " + r.getPartition() + " after " + b.sends + " sends");
      // Its sequences are now unusable: go on as a new epoch, dropping what was pending.
      pending.clear();
      init(ch, producerId);
      return;
    }
    ledger.answered(b.partition, r.getBaseOffset(), b.keys, r.getDuplicate());
  }

  private long pause() {
    return 2 + random.nextInt(20);
  }
}
