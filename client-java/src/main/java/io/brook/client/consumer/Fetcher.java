package io.brook.client.consumer;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.common.util.concurrent.MoreExecutors;
import com.google.protobuf.ByteString;
import io.brook.client.Deserializer;
import io.brook.client.TopicPartition;
import io.brook.client.errors.BrookException;
import io.brook.client.internal.ErrorMapping;
import io.brook.client.internal.RecordConversion;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.CorruptBatchException;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.FetchResponse;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.Record;
import io.grpc.Context;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Fetches of the partitions with known positions, turned into client records. The broker answers
 * with raw stored batches, decoded here, so it copies bytes and decodes nothing. Positions move only
 * once the whole answer was understood and deserialized, so a failure loses nothing: the next poll
 * reads the same records again. A partition found gone (its topic deleted) is the exception: it is
 * left out of the next fetches and the others are read on; only an answer of nothing but gone
 * partitions fails.
 *
 * <p>Whole batches can hold more than {@code max.poll.records}: the records past it wait here and
 * are handed out by the next polls, before any new fetch, as long as no assignment, seek or reset
 * came in between. Once nothing waits, the next fetch is sent at once while the application works
 * on what this poll returned, as Kafka's consumer does, so the broker's read and the client's
 * decoding overlap instead of taking turns; a fetch a poll did not wait out stays in flight for the
 * next poll.
 */
final class Fetcher<K, V> {
  private static final System.Logger LOG = System.getLogger(Fetcher.class.getName());

  private final ConsumerConfig config;
  private final FetchServiceGrpc.FetchServiceFutureStub fetches;
  private final Deserializer<K> keys;
  private final Deserializer<V> values;
  private final RawBatchDecoder<K, V> batches;
  private final ConsumerMetrics metrics;
  private final Map<TopicPartition, ArrayDeque<ConsumerRecord<K, V>>> buffered = new LinkedHashMap<>();
  private long bufferedAt;
  private InFlight inFlight;
  /**
   * Partitions a fetch found gone (their topic was deleted), left out of the fetches so that the
   * others are read on, as Kafka's fetcher handles errors per partition: a cooperative member keeps
   * them while the group rebalances them away. Forgotten once the states change (an assignment, a
   * seek): fetched again, a partition says whether it is still gone.
   */
  private final Map<TopicPartition, BrookException> gone = new LinkedHashMap<>();
  private long goneAt;

  /** A fetch sent and not yet taken: what it asked for, and the states' change count then. */
  private record InFlight(ListenableFuture<FetchResponse> answer, List<TopicPartition> order, List<Long> offsets,
      long changes) {}

  Fetcher(ConsumerConfig config, FetchServiceGrpc.FetchServiceFutureStub fetches, Deserializer<K> keys,
      Deserializer<V> values) {
    this(config, fetches, keys, values, new ConsumerMetrics());
  }

  Fetcher(ConsumerConfig config, FetchServiceGrpc.FetchServiceFutureStub fetches, Deserializer<K> keys,
      Deserializer<V> values, ConsumerMetrics metrics) {
    this.metrics = metrics;
    this.config = config;
    this.fetches = fetches;
    this.keys = keys;
    this.values = values;
    this.batches = new RawBatchDecoder<>(keys, values);
  }

  /**
   * Hands out what earlier fetches read, or the answer of the fetch in flight (sending one when
   * there is none), waiting up to {@code waitMs} for it; updates the states. An answer that takes
   * longer stays in flight for the next poll.
   */
  ConsumerRecords<K, V> fetch(PartitionStates states, long waitMs) {
    ConsumerRecords<K, V> waiting = drainBuffered(states);
    if (!waiting.isEmpty()) {
      if (!hasBufferedToHandOut(states)) {
        sendIfIdle(states);
      }
      return waiting;
    }
    if (inFlight != null && !stillNext(inFlight, states)) {
      cancel(inFlight.answer()); // an assignment, seek or reset came in between
      inFlight = null;
    }
    sendIfIdle(states);
    InFlight current = inFlight;
    if (current == null) {
      for (Map.Entry<TopicPartition, BrookException> e : gone.entrySet()) {
        if (states.isAssigned(e.getKey()) && !states.isPaused(e.getKey())) {
          throw e.getValue(); // all that is left to fetch is gone: a member's poll rides it out
        }
      }
      return ConsumerRecords.empty(); // no partition with a known position
    }
    FetchResponse response;
    try {
      response = await(current.answer(), waitMs);
    } catch (RuntimeException e) {
      inFlight = null; // a failed or cancelled answer is never awaited twice
      throw e;
    }
    if (response == null) {
      return ConsumerRecords.empty();
    }
    inFlight = null;
    metrics.fetchAnswered();
    ConsumerRecords<K, V> records = understand(states, current.order(), response);
    if (!hasBufferedToHandOut(states) && !records.isEmpty()) {
      sendIfIdle(states); // records flow: the broker reads on while the application works
    }
    return records;
  }

  /** Cancels a fetch still on its way: its records were never handed out, so nothing is lost. */
  void close() {
    if (inFlight != null) {
      cancel(inFlight.answer());
      inFlight = null;
    }
  }

  /**
   * Whether records wait here for a partition that is not paused. A fetch is sent only when none
   * does, so that no partition is fetched past records still waiting for it (the fetch order leaves
   * the paused ones out).
   */
  private boolean hasBufferedToHandOut(PartitionStates states) {
    for (TopicPartition tp : buffered.keySet()) {
      if (!states.isPaused(tp)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Sends a long-polling fetch from the current positions unless one is in flight or no partition
   * has a known position (or every such partition is paused). It starts in the root context, not
   * the poll's, so that it outlives the poll.
   */
  private void sendIfIdle(PartitionStates states) {
    if (inFlight != null) {
      return;
    }
    List<TopicPartition> order = states.fetchOrder();
    if (goneAt != states.changes()) {
      gone.clear();
    }
    order.removeAll(gone.keySet());
    if (order.isEmpty()) {
      return;
    }
    FetchRequest.Builder request = newRequest();
    List<Long> offsets = new ArrayList<>(order.size());
    for (TopicPartition tp : order) {
      long offset = states.position(tp);
      offsets.add(offset);
      request.addPartitions(FetchPartition.newBuilder().setTopic(tp.topic()).setPartition(tp.partition())
          .setOffset(offset));
    }
    Context previous = Context.ROOT.attach(); // a gRPC call is cancelled with the context it starts in
    try {
      ListenableFuture<FetchResponse> answer = fetches.withDeadlineAfter(
          config.fetchMaxWaitMs() + config.requestTimeoutMs(), TimeUnit.MILLISECONDS).fetch(request.build());
      inFlight = new InFlight(answer, order, offsets, states.changes());
    } finally {
      Context.ROOT.detach(previous);
    }
  }

  /** A fetch with the consumer's limits, asking for raw batches of both format versions, before its partitions. */
  FetchRequest.Builder newRequest() {
    return FetchRequest.newBuilder().setMaxRecords(config.maxPollRecords()).setMaxBytes(config.fetchMaxBytes())
        .setMaxWaitMs(config.fetchMaxWaitMs()).setRawBatches(true)
        .setMaxBatchVersion(BatchFormat.VERSION_2); // RawBatchDecoder reads versions 1 and 2
  }

  private static boolean stillNext(InFlight f, PartitionStates states) {
    if (f.changes() != states.changes()) {
      return false;
    }
    for (int i = 0; i < f.order().size(); i++) {
      Long position = states.position(f.order().get(i));
      if (position == null || position.longValue() != f.offsets().get(i)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The answer, or null when it has not come within {@code waitMs}. A wakeup (which cancels the
   * poll's context) cancels the fetch and ends the wait.
   */
  private static FetchResponse await(ListenableFuture<FetchResponse> answer, long waitMs) {
    Context poll = Context.current();
    Context.CancellationListener onWakeup = c -> cancel(answer);
    poll.addListener(onWakeup, MoreExecutors.directExecutor());
    try {
      return answer.get(waitMs, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw ErrorMapping.fromThrowable(e);
    } catch (TimeoutException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cancel(answer);
      throw new BrookException("INTERRUPTED", "interrupted while waiting for a fetch", e);
    } finally {
      poll.removeListener(onWakeup);
    }
  }

  /**
   * Cancels the call, not only the future: gRPC's future cancels its call (and the broker drops the
   * long poll) only when asked to interrupt, and it interrupts no thread.
   */
  private static void cancel(ListenableFuture<FetchResponse> answer) {
    answer.cancel(true);
  }

  /** Turns an answer into records, resets out-of-range partitions, and hands out what poll may return. */
  private ConsumerRecords<K, V> understand(PartitionStates states, List<TopicPartition> order,
      FetchResponse response) {
    Map<TopicPartition, List<ConsumerRecord<K, V>>> records = new LinkedHashMap<>();
    Map<TopicPartition, PartitionRecords> done = new LinkedHashMap<>();
    Map<TopicPartition, PartitionRecords> outOfRange = new LinkedHashMap<>();
    Map<TopicPartition, BrookException> foundGone = new LinkedHashMap<>();
    int answered = Math.min(order.size(), response.getPartitionsCount());
    for (int i = 0; i < answered; i++) {
      TopicPartition tp = order.get(i);
      PartitionRecords pr = response.getPartitions(i);
      if (pr.getErrorCode() == ErrorCode.ERROR_CODE_OFFSET_OUT_OF_RANGE) {
        outOfRange.put(tp, pr);
        continue;
      }
      if (pr.getErrorCode() != ErrorCode.ERROR_CODE_UNSPECIFIED) {
        BrookException e = ErrorMapping.fromCode(pr.getErrorCode(), "fetch of " + tp + " failed: "
            + pr.getErrorMessage());
        if (e.isRetriable()) {
          LOG.log(System.Logger.Level.DEBUG, "fetch of {0} failed, trying again at the next poll: {1}", tp,
              e.getMessage());
          continue;
        }
        if (UnknownTopics.gone(e)) {
          foundGone.put(tp, e);
          continue;
        }
        throw e;
      }
      List<ConsumerRecord<K, V>> converted = convert(tp, pr, states.position(tp));
      metrics.fetched(pr, converted.size());
      if (!converted.isEmpty()) {
        records.put(tp, converted);
      }
      done.put(tp, pr);
    }
    leaveOut(states, foundGone);
    if (!foundGone.isEmpty() && foundGone.size() == answered) {
      throw foundGone.values().iterator().next(); // nothing else was fetched: as before, a member's poll rides it out
    }
    for (Map.Entry<TopicPartition, PartitionRecords> e : outOfRange.entrySet()) {
      resetOutOfRange(states, e.getKey(), e.getValue());
    }
    return handOut(states, records, done);
  }

  /** Leaves the partitions found gone out of the next fetches, with one warning per answer that found some. */
  private void leaveOut(PartitionStates states, Map<TopicPartition, BrookException> foundGone) {
    if (goneAt != states.changes()) {
      gone.clear();
    }
    goneAt = states.changes();
    List<TopicPartition> fresh = new ArrayList<>();
    foundGone.forEach((tp, e) -> {
      if (states.isAssigned(tp) && gone.putIfAbsent(tp, e) == null) {
        fresh.add(tp);
      }
    });
    if (!fresh.isEmpty()) {
      LOG.log(System.Logger.Level.WARNING, "partitions {0} are gone (topic deleted); fetching the others until they"
          + " are assigned again (a group member: until the group rebalances them away)", fresh);
    }
  }

  /** The records of one partition's answer from {@code position} on, deserialized. */
  List<ConsumerRecord<K, V>> convert(TopicPartition tp, PartitionRecords pr, long position) {
    List<ConsumerRecord<K, V>> converted = new ArrayList<>(pr.getRecordsCount());
    for (Record r : pr.getRecordsList()) { // a broker that does not know raw_batches answers with records
      converted.add(RecordConversion.toRecord(tp.topic(), tp.partition(), r, keys, values, ConsumerRecord::new));
    }
    try {
      for (ByteString batch : pr.getBatchesList()) {
        batches.decode(tp, batch, position, converted);
      }
    } catch (CorruptBatchException e) {
      throw new BrookException("CORRUPT_BATCH", "fetch of " + tp + " returned a batch that does not decode: "
          + e.getMessage(), e);
    }
    return converted;
  }

  /**
   * Hands out at most max.poll.records of what one fetch decoded, in partition order, moving each
   * position past what it hands out; the rest waits for the next polls. A partition paused while
   * the fetch was under way hands out nothing: its records wait here until it is resumed.
   */
  private ConsumerRecords<K, V> handOut(PartitionStates states, Map<TopicPartition, List<ConsumerRecord<K, V>>> records,
      Map<TopicPartition, PartitionRecords> done) {
    int budget = config.maxPollRecords();
    Map<TopicPartition, List<ConsumerRecord<K, V>>> out = new LinkedHashMap<>();
    for (Map.Entry<TopicPartition, PartitionRecords> e : done.entrySet()) {
      TopicPartition tp = e.getKey();
      PartitionRecords pr = e.getValue();
      List<ConsumerRecord<K, V>> all = records.getOrDefault(tp, List.of());
      int take = states.isPaused(tp) ? 0 : Math.min(budget, all.size());
      budget -= take;
      if (take > 0) {
        out.put(tp, all.size() == take ? all : new ArrayList<>(all.subList(0, take)));
      }
      if (take == all.size()) {
        states.fetched(tp, pr.getNextOffset(), pr.getEndOffset());
        continue;
      }
      buffered.put(tp, new ArrayDeque<>(all.subList(take, all.size())));
      states.endOffset(tp, pr.getEndOffset());
      if (take > 0) {
        states.advance(tp, all.get(take - 1).offset() + 1);
      }
    }
    bufferedAt = states.changes();
    return new ConsumerRecords<>(out);
  }

  /**
   * Up to max.poll.records of the records earlier fetches read past it, if they are still next;
   * those of paused partitions stay.
   */
  private ConsumerRecords<K, V> drainBuffered(PartitionStates states) {
    if (buffered.isEmpty()) {
      return ConsumerRecords.empty();
    }
    if (states.changes() != bufferedAt) {
      buffered.clear(); // an assignment, seek or reset came in between: fetch again
      return ConsumerRecords.empty();
    }
    int budget = config.maxPollRecords();
    Map<TopicPartition, List<ConsumerRecord<K, V>>> out = new LinkedHashMap<>();
    Iterator<Map.Entry<TopicPartition, ArrayDeque<ConsumerRecord<K, V>>>> it = buffered.entrySet().iterator();
    while (it.hasNext() && budget > 0) {
      Map.Entry<TopicPartition, ArrayDeque<ConsumerRecord<K, V>>> e = it.next();
      if (states.isPaused(e.getKey())) {
        continue;
      }
      ArrayDeque<ConsumerRecord<K, V>> waiting = e.getValue();
      List<ConsumerRecord<K, V>> taken = new ArrayList<>(Math.min(budget, waiting.size()));
      while (budget > 0 && !waiting.isEmpty()) {
        taken.add(waiting.pollFirst());
        budget--;
      }
      out.put(e.getKey(), taken);
      states.advance(e.getKey(), taken.get(taken.size() - 1).offset() + 1);
      if (waiting.isEmpty()) {
        it.remove();
      }
    }
    return new ConsumerRecords<>(out);
  }

  /** Retention passed the position (or it lies beyond the end): start over per auto.offset.reset. */
  private void resetOutOfRange(PartitionStates states, TopicPartition tp, PartitionRecords pr) {
    long from = states.position(tp);
    long to = switch (config.autoOffsetReset()) {
      case EARLIEST -> pr.getLogStartOffset();
      case LATEST -> pr.getEndOffset();
      case NONE -> throw ErrorMapping.fromCode(ErrorCode.ERROR_CODE_OFFSET_OUT_OF_RANGE, "offset " + from + " of " + tp
          + " is out of range [" + pr.getLogStartOffset() + ", " + pr.getEndOffset()
          + "] and auto.offset.reset is none: seek to a valid offset");
    };
    LOG.log(System.Logger.Level.WARNING, "offset {0} of {1} is out of range [{2}, {3}]; resetting to {4} ({5})",
        from, tp, pr.getLogStartOffset(), pr.getEndOffset(), to, config.autoOffsetReset().name().toLowerCase());
    states.seek(tp, to);
    states.endOffset(tp, pr.getEndOffset());
  }
}
