package io.brook.client.ack;

import io.brook.client.Deserializer;
import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.errors.BrookException;
import io.brook.client.errors.BrookTimeoutException;
import io.brook.client.errors.ClientClosedException;
import io.brook.client.errors.InvalidRecordException;
import io.brook.client.internal.Backoff;
import io.brook.client.internal.Connection;
import io.brook.client.internal.ErrorMapping;
import io.brook.client.internal.RecordConversion;
import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.FlowControl;
import io.brook.protocol.v1.LeasedRecord;
import io.brook.protocol.v1.LeasedRecords;
import io.brook.protocol.v1.OffsetRange;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.SettleResponse;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A member of an ack-mode group (queue semantics, like a Pub/Sub subscriber or a Kafka share
 * consumer): the broker leases records to it over one {@code AckService.Receive} stream; each is
 * settled by {@link #ack}, {@link #nack} (deliver again, optionally after a delay), {@link #reject}
 * (dead-letter now) or left to its lease running out (delivered again, to any member).
 *
 * <p><b>Batching.</b> Settles are buffered and sent together on the stream, as offset ranges, every
 * {@code ackFlushInterval} or as soon as {@code ackMaxBatch} are waiting. {@link #flush()} sends
 * what is waiting at once, in one unary {@code Settle} call, waits for the broker's answer to the
 * settles sent in the background before it, and returns every one that did not apply.
 *
 * <p><b>Failures.</b> A settle the broker does not apply ({@code NOT_LEASED}, {@code
 * LEASE_EXPIRED}, {@code ALREADY_SETTLED}, ...) is a {@link SettleFailure} carrying the typed
 * exception: returned by {@link #flush()} for every settle queued before it, and given to the {@link
 * SettleFailureHandler} for those sent in the background (default: a logged warning). Errors that
 * end the consumer (unknown topic, a group in offset mode, another consumer taking over its client
 * id, refused credentials) are thrown by the next {@link #poll}.
 *
 * <p><b>Flow control.</b> The broker keeps at most {@code maxOutstandingRecords} (and {@code
 * maxOutstandingBytes}) records leased to this consumer and not yet settled; it sends more as
 * records are settled. Records polled and never settled therefore hold the consumer back until
 * their leases run out.
 *
 * <p><b>Broker restarts.</b> When the stream breaks (the broker stops, restarts, or the connection
 * drops) the consumer opens it again with exponential backoff, by itself; {@code poll} just returns
 * nothing meanwhile. Settles not yet sent wait for the new stream. Delivery is at least once:
 * settles that were in flight when the stream broke may be lost, and leases are not kept across a
 * broker restart, so such records come again with a higher {@link AckRecord#deliveryAttempt()};
 * acking one of the earlier copies then may fail ({@code NOT_LEASED}, {@code ALREADY_SETTLED}).
 * Without a {@code clientId}, records received but not yet returned by {@code poll} are dropped
 * when the stream breaks (the broker handed their leases back); with one they are kept (the
 * member's leases outlive the stream until they expire).
 *
 * <p><b>Threads.</b> Every method is thread-safe. Acking from worker threads while one thread
 * polls is the intended use; concurrent polls are safe too (each record goes to one of them).
 */
public final class AckConsumer<K, V> implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(AckConsumer.class.getName());
  private static final Object WAKE = new Object();
  static final long MAX_NACK_DELAY_MS = 86_400_000L;
  static final long MAX_LEASE_MS = 3_600_000L;
  /** Longer close timeouts are taken as this, which still fits a deadline in nanoseconds. */
  private static final Duration MAX_CLOSE = Duration.ofDays(36_500);

  /** A record as received, kept in wire form until a poll hands it out. */
  private record Inbound(long stream, String topic, int partition, LeasedRecord leased) {}

  private final AckConsumerConfig config;
  private final Deserializer<K> keys;
  private final Deserializer<V> values;
  private final Connection connection;
  private final AckServiceGrpc.AckServiceStub async;
  private final AckServiceGrpc.AckServiceBlockingStub blocking;
  private final ScheduledExecutorService timer;
  private final LinkedBlockingDeque<Object> inbox = new LinkedBlockingDeque<>();
  private final PendingSettles pending = new PendingSettles();
  /** Settles sent in the background, until the broker answers them (for flush). */
  private final SentSettles sent = new SentSettles();
  private final Backoff backoff;
  private final SettleFailureHandler failureHandler;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Object streamLock = new Object();
  /**
   * Held from taking settles out of {@code pending} until they are on the stream (or put back), so
   * that close never half-closes the stream while another thread holds settles it took.
   */
  private final Object sendLock = new Object();
  /** Set by close: from then on only close sends settles. Guarded by sendLock. */
  private boolean closeSends;
  private final ReceiveStream.Listener listener = new StreamListener();
  /** The open stream; null while reconnecting. Guarded by streamLock. */
  private volatile ReceiveStream current;
  private long lastStreamId;
  /** Close is done with the stream: one that ends is not opened again. Written under streamLock. */
  private volatile boolean finished;
  private volatile BrookException fatal;
  /** The bound close was given, for its messages; written by the one close that runs, before it waits. */
  private volatile Duration closeTimeout;

  private final AtomicLong received = new AtomicLong();
  private final AtomicLong redelivered = new AtomicLong();
  private final AtomicLong queued = new AtomicLong();
  private final AtomicLong settleMessages = new AtomicLong();
  private final AtomicLong settleCalls = new AtomicLong();
  private final AtomicLong settleFailures = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();

  /** Connects and starts receiving (errors that end the consumer surface on {@link #poll}). */
  public AckConsumer(AckConsumerConfig config, Deserializer<K> keys, Deserializer<V> values) {
    this.config = Objects.requireNonNull(config, "config");
    this.keys = Objects.requireNonNull(keys, "keys");
    this.values = Objects.requireNonNull(values, "values");
    this.backoff = new Backoff(config.reconnectBackoff().toMillis(), config.reconnectBackoffMax().toMillis());
    this.failureHandler = config.settleFailureHandler() != null ? config.settleFailureHandler()
        : f -> LOG.log(System.Logger.Level.WARNING, "ack consumer of group " + config.group() + ": not settled: " + f);
    this.connection = Connection.of(config.address(), config.channel(), config.security());
    this.async = AckServiceGrpc.newStub(connection.channel());
    this.blocking = AckServiceGrpc.newBlockingStub(connection.channel());
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "brook-ack-consumer-" + config.group());
      t.setDaemon(true);
      return t;
    });
    long interval = config.ackFlushInterval().toMillis();
    if (interval > 0) {
      timer.scheduleWithFixedDelay(this::sendPendingQuietly, interval, interval, TimeUnit.MILLISECONDS);
    }
    connect();
  }

  /** Keys and values as bytes. */
  public static AckConsumer<byte[], byte[]> ofBytes(AckConsumerConfig config) {
    return new AckConsumer<>(config, Serdes.bytesDeserializer(), Serdes.bytesDeserializer());
  }

  /** Keys and values as UTF-8 text. */
  public static AckConsumer<String, String> ofStrings(AckConsumerConfig config) {
    return new AckConsumer<>(config, Serdes.stringDeserializer(), Serdes.stringDeserializer());
  }

  /**
   * Records leased to this consumer: waits up to {@code timeout} for the first, then returns it
   * with those already received, at most {@code maxPollRecords}. Empty when none came, when {@link
   * #wakeup()} was called, or while the stream is being opened again.
   *
   * @throws BrookException what ended the consumer (unknown topic, group in offset mode, ...)
   * @throws InvalidRecordException a key or value the deserializer refused; that record stays
   *     leased and unsettled (it comes again when the lease runs out, and is dead-lettered after the
   *     group's max.delivery.attempts), the records after it are returned by the next poll
   * @throws ClientClosedException after {@link #close()}
   */
  public List<AckRecord<K, V>> poll(Duration timeout) {
    checkOpen();
    throwIfFatal();
    Object first;
    try {
      first = inbox.poll(Math.max(0, timeout.toNanos()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BrookException("INTERRUPTED", "poll was interrupted", e);
    }
    if (!(first instanceof Inbound)) {
      throwIfFatal();
      return List.of();
    }
    List<Inbound> got = new ArrayList<>();
    got.add((Inbound) first);
    while (got.size() < config.maxPollRecords()) {
      Object next = inbox.poll();
      if (next == null) {
        break;
      }
      if (next instanceof Inbound in) {
        got.add(in);
      }
    }
    List<AckRecord<K, V>> out = new ArrayList<>(got.size());
    for (int i = 0; i < got.size(); i++) {
      Inbound in = got.get(i);
      try {
        ConsumerRecord<K, V> r = RecordConversion.toRecord(in.topic(), in.partition(), in.leased().getRecord(),
            keys, values, ConsumerRecord::new);
        out.add(new AckRecord<>(r, in.leased().getDeliveryAttempt(), in.leased().getLeaseDeadlineMs()));
      } catch (RuntimeException e) {
        for (int j = got.size() - 1; j > i; j--) {
          inbox.offerFirst(got.get(j));
        }
        throw new InvalidRecordException("DESERIALIZATION_FAILED", "cannot deserialize " + in.topic() + "-"
            + in.partition() + "@" + in.leased().getRecord().getOffset() + ": " + e, e);
      }
    }
    return out;
  }

  /** Settles the record: it is done and never delivered again. */
  public void ack(AckRecord<?, ?> record) {
    queue(record, PendingSettles.Kind.ACK, 0);
  }

  /** Hands the record back: it is delivered again (to any member) at once. */
  public void nack(AckRecord<?, ?> record) {
    queue(record, PendingSettles.Kind.NACK, 0);
  }

  /** Hands the record back, to be delivered again no sooner than {@code delay} (at most 24 h). */
  public void nack(AckRecord<?, ?> record, Duration delay) {
    long ms = delay.toMillis();
    if (ms < 0 || ms > MAX_NACK_DELAY_MS) {
      throw new IllegalArgumentException("nack delay must be in [0, 24 h], got " + delay);
    }
    queue(record, PendingSettles.Kind.NACK, (int) ms);
  }

  /** Dead-letters the record now (reason "rejected"), whatever its attempt count. */
  public void reject(AckRecord<?, ?> record) {
    queue(record, PendingSettles.Kind.REJECT, 0);
  }

  /** Makes the record's lease run {@code lease} from when the broker gets this (1 ms .. 1 h). */
  public void extendLease(AckRecord<?, ?> record, Duration lease) {
    long ms = lease.toMillis();
    if (ms < 1 || ms > MAX_LEASE_MS) {
      throw new IllegalArgumentException("lease must be in [1 ms, 1 h], got " + lease);
    }
    queue(record, PendingSettles.Kind.EXTEND, (int) ms);
  }

  /**
   * Sends every waiting settle now, in one {@code Settle} call, waits for the broker's answer to
   * every settle queued before the call, whoever sent it (this call, or the background sender on the
   * stream), and returns those that did not apply: empty when the broker applied them all. A failure
   * carries the broker's typed error ({@code NotLeasedException}, ...), or reason {@link
   * SettleFailure#OUTCOME_UNKNOWN} for settles sent in the background whose stream broke, or that got
   * no answer within {@code requestTimeout}. Each failure is returned by one flush (those that came
   * before the call included, since the previous flush); refusals of background sends also go to the
   * {@link SettleFailureHandler} as they come. Waits for a stream (while reconnecting) at most {@code
   * requestTimeout}.
   *
   * @throws BrookException the call failed (the broker is unreachable: {@code
   *     BrokerUnavailableException}, retriable); its settles wait for the next send, and the outcomes
   *     of earlier ones for the next flush
   */
  public List<SettleFailure> flush() {
    checkOpen();
    long deadline = System.nanoTime() + config.requestTimeout().toNanos();
    long sentBefore;
    PendingSettles.Batch batch;
    synchronized (sendLock) { // no background send is half done while we look
      sentBefore = sent.last();
      batch = pending.drain();
    }
    List<SettleFailure> out = new ArrayList<>();
    if (!batch.isEmpty()) {
      String member;
      try {
        member = awaitMemberId(deadline);
      } catch (RuntimeException e) {
        pending.restore(batch);
        throw e;
      }
      try {
        SettleResponse response = blocking.withDeadlineAfter(Math.max(1, deadline - System.nanoTime()),
            TimeUnit.NANOSECONDS).settle(batch.toSettleRequest(config.group(), member));
        settleCalls.incrementAndGet();
        out.addAll(failures(response.getFailuresList()));
      } catch (RuntimeException e) {
        pending.restore(batch);
        throw ErrorMapping.fromThrowable(e);
      }
    }
    out.addAll(sent.collect(sentBefore, deadline, config.requestTimeout().toString()));
    return out;
  }

  /** Makes a blocked (or the next) {@link #poll} return at once, empty. */
  public void wakeup() {
    inbox.add(WAKE);
  }

  /** The member id the broker gave the current stream (the client id when set), or null. */
  public String memberId() {
    ReceiveStream s = current;
    return s == null ? null : s.memberId();
  }

  /** The config it was made with. */
  public AckConsumerConfig config() {
    return config;
  }

  /** Its counters so far (received, redelivered, settles, failures, reconnects). */
  public AckConsumerStats stats() {
    return new AckConsumerStats(received.get(), redelivered.get(), queued.get(), settleMessages.get(),
        settleCalls.get(), settleFailures.get(), reconnects.get());
  }

  /** {@link #close(Duration)} with {@code requestTimeout} as its bound. */
  @Override
  public void close() {
    close(config.requestTimeout());
  }

  /**
   * Sends every settle queued before it, ends the stream, waits until the broker has applied them,
   * and then stops the consumer; {@code timeout} bounds the whole wait (zero: none). Without a
   * {@code clientId} the settles need a stream whose member holds the records: while the stream is
   * being opened again (the broker restarts, the connection dropped) close waits for it, within the
   * timeout. With a {@code clientId} they go in a {@code Settle} call when no stream is open.
   *
   * <p>When close returns, each queued settle was applied by the broker, or the {@link
   * SettleFailureHandler} was told (on this thread, for settles close sent) with a {@link
   * SettleFailure} naming its offsets: the broker refused it (its typed error), it was not sent
   * ({@link SettleFailure#NOT_SENT}: no stream within the timeout, or an error ended the consumer),
   * or it was sent and the stream ended with an error, or did not end within the timeout, before the
   * broker confirmed it ({@link SettleFailure#OUTCOME_UNKNOWN}). Settles sent in the background
   * before close are confirmed by the same end of the stream; as with any broken stream, those sent
   * just before it broke may be lost unreported (at least once).
   *
   * <p>Records received but never returned by {@link #poll} are handed back (nacked). Records polled
   * and not settled are handed back by the broker when the stream ends, or, with a {@code clientId},
   * stay leased until their leases run out. A second close returns at once.
   *
   * @param timeout how long close may wait for the broker, at least zero
   * @throws IllegalArgumentException a negative or missing timeout
   */
  public void close(Duration timeout) {
    if (timeout == null || timeout.isNegative()) {
      throw new IllegalArgumentException("close timeout must be >= 0, got " + timeout);
    }
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    closeTimeout = timeout;
    inbox.add(WAKE);
    long deadline = System.nanoTime() + (timeout.compareTo(MAX_CLOSE) > 0 ? MAX_CLOSE : timeout).toNanos();
    synchronized (sendLock) {
      closeSends = true; // a background send under way is on the stream now; no other follows
    }
    try {
      boolean ended = endStream(deadline);
      stopReconnecting();
      handBack(deadline, ended);
    } finally {
      stopReconnecting(); // also when something above failed
      timer.shutdownNow();
      connection.close();
    }
  }

  // --- internals

  private void queue(AckRecord<?, ?> record, PendingSettles.Kind kind, int millis) {
    Objects.requireNonNull(record, "record");
    checkOpen();
    int waiting = pending.add(record.topic(), record.partition(), record.offset(), kind, millis);
    queued.incrementAndGet();
    if (waiting >= config.ackMaxBatch() || config.ackFlushInterval().isZero()) {
      sendPending();
    }
  }

  /** Sends what waits on the stream, once the broker accepted it; kept for later otherwise. */
  private void sendPending() {
    synchronized (sendLock) {
      ReceiveStream s = current;
      if (closeSends || s == null || s.memberId() == null || pending.size() == 0) {
        return;
      }
      PendingSettles.Batch batch = pending.drain();
      if (batch.isEmpty()) {
        return;
      }
      ReceiveRequest request = batch.toReceiveRequest();
      if (s.confirmsSettles()) {
        request = request.toBuilder().setSettleSeq(sent.track(s, batch)).build(); // flush waits for the answer
      }
      boolean ok = s.send(request);
      if (ok) {
        settleMessages.incrementAndGet();
      }
      if (request.getSettleSeq() != 0 && !sent.sendDone(request.getSettleSeq(), ok)) {
        return; // answered already: sent after all
      }
      if (!ok) {
        pending.restore(batch);
      }
    }
  }

  /** For the timer: an exception would cancel the periodic task. */
  private void sendPendingQuietly() {
    try {
      sendPending();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "ack consumer of group " + config.group() + ": sending settles failed: " + e);
    }
  }

  /**
   * Close's part with the stream: once one is open with a member id (waiting for it, until the
   * deadline, when settles are queued and the member cannot settle without it), the last settles go
   * out on it in one message, then the stream is half-closed; its clean end confirms every settle
   * sent on it. Answers whether close ended a stream so.
   */
  private boolean endStream(long deadline) {
    ReceiveStream broken = null;
    while (true) {
      boolean needStream = pending.size() > 0 && config.clientId() == null;
      if (needStream && !ready(current) && fatal == null) {
        LOG.log(System.Logger.Level.INFO, "ack consumer of group " + config.group() + ": closing; waiting up to "
            + closeTimeout + " for a stream to the broker to send " + pending.size() + " settles");
      }
      ReceiveStream s = needStream ? awaitReadyStream(deadline, broken) : ready(current) ? current : null;
      if (s == null) {
        return false;
      }
      PendingSettles.Batch last;
      synchronized (sendLock) {
        last = pending.drain();
        if (!last.isEmpty() && !s.send(last.toReceiveRequest())) {
          pending.restore(last); // the stream broke meanwhile: wait for the next one
          broken = s;
          continue;
        }
        s.halfClose();
      }
      if (!last.isEmpty()) {
        settleMessages.incrementAndGet();
      }
      String unknown = awaitEnd(s, deadline);
      if (unknown != null) {
        tell(last, new BrookException(SettleFailure.OUTCOME_UNKNOWN, "sent, but " + unknown + ", so whether the "
            + "broker applied them is unknown", s.error()));
      }
      return true;
    }
  }

  /** Waits for the end of a stream close half-closed: null when the broker ended it cleanly, else what happened. */
  private String awaitEnd(ReceiveStream s, long deadline) {
    try {
      if (!s.awaitEnd(remainingMillis(deadline))) {
        s.cancel("closed");
        return "the broker did not end the stream within " + closeTimeout;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      s.cancel("closed");
      return "close was interrupted before the broker ended the stream";
    }
    return s.error() == null ? null : "the stream ended with an error before the broker confirmed them ("
        + ErrorMapping.fromThrowable(s.error()).getMessage() + ")";
  }

  private static boolean ready(ReceiveStream s) {
    return s != null && s.memberId() != null;
  }

  /**
   * The open stream (other than {@code broken}) once the broker gave it a member id; null at the
   * deadline, once an error ended the consumer, or when interrupted (the interrupt stays set).
   */
  private ReceiveStream awaitReadyStream(long deadline, ReceiveStream broken) {
    while (true) {
      ReceiveStream s = current;
      if (ready(s) && s != broken) {
        return s;
      }
      if (fatal != null || System.nanoTime() - deadline >= 0) {
        return null;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }

  private static long remainingMillis(long deadline) {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
  }

  /** No stream is opened again; one still open that close did not end is cancelled. */
  private void stopReconnecting() {
    ReceiveStream s;
    synchronized (streamLock) {
      finished = true;
      s = current;
    }
    if (s != null && !s.closing()) {
      s.cancel("closed");
    }
  }

  /**
   * After the stream: settles close could not send on it (queued meanwhile, or no stream came), and
   * for a member with a client id the records never polled (nacked: their leases outlive the
   * stream), go in a Settle call when there is a client id to settle as; without one they are
   * reported as not sent.
   */
  private void handBack(long deadline, boolean streamEnded) {
    PendingSettles.Batch left = pending.drain();
    if (config.clientId() == null) {
      BrookException stopped = fatal;
      String why = stopped != null ? "the consumer stopped: " + stopped.getMessage()
          : Thread.currentThread().isInterrupted() ? "close was interrupted"
          : streamEnded ? "queued while the consumer was closing"
          : "no stream to the broker within " + closeTimeout;
      tell(left, new BrookException(SettleFailure.NOT_SENT, "not sent: " + why, stopped));
      return; // the broker handed this member's leases back when its stream ended
    }
    settleAsClient(left, deadline, true);
    PendingSettles nacks = new PendingSettles();
    for (Object o : inbox) {
      if (o instanceof Inbound in) {
        nacks.add(in.topic(), in.partition(), in.leased().getRecord().getOffset(), PendingSettles.Kind.NACK, 0);
      }
    }
    inbox.clear();
    settleAsClient(nacks.drain(), deadline, false);
  }

  /**
   * One Settle call as the member named by the client id, waiting for a connection until the
   * deadline. The application's settles ({@code report}) go to the handler when they fail; the
   * hand-back of records never polled only logs (they come again when their leases run out).
   */
  private void settleAsClient(PendingSettles.Batch batch, long deadline, boolean report) {
    if (batch.isEmpty()) {
      return;
    }
    try {
      SettleResponse response = blocking.withWaitForReady().withDeadlineAfter(Math.max(1, deadline - System.nanoTime()),
          TimeUnit.NANOSECONDS).settle(batch.toSettleRequest(config.group(), config.clientId()));
      settleCalls.incrementAndGet();
      for (SettleFailure f : failures(response.getFailuresList())) {
        if (report) {
          tell(f);
        } else {
          LOG.log(System.Logger.Level.WARNING, "ack consumer of group " + config.group() + ": handing back " + f);
        }
      }
    } catch (RuntimeException e) {
      BrookException b = ErrorMapping.fromThrowable(e);
      if (!report) {
        LOG.log(System.Logger.Level.WARNING, "ack consumer of group " + config.group() + ": " + batch.count()
            + " records never polled were not handed back (" + b.getMessage() + "); they come again when their leases run out");
      } else if (refusedByTheBroker(e)) {
        tell(batch, b);
      } else {
        tell(batch, new BrookException(SettleFailure.OUTCOME_UNKNOWN, "the Settle call failed (" + b.getMessage()
            + "), so whether the broker applied them is unknown", b));
      }
    }
  }

  /** A call the broker answered with an error of its own (so it applied nothing), not a transport failure. */
  private static boolean refusedByTheBroker(Throwable e) {
    return switch (Status.fromThrowable(e).getCode()) {
      case UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED, UNKNOWN, INTERNAL, ABORTED -> false;
      default -> true;
    };
  }

  /** Tells the handler about every range of the batch, all for the same error. */
  private void tell(PendingSettles.Batch batch, BrookException error) {
    for (OffsetRange r : batch.ranges()) {
      long last = r.hasLastOffset() ? r.getLastOffset() : r.getFirstOffset();
      settleFailures.incrementAndGet();
      tell(new SettleFailure(new TopicPartition(r.getTopic(), r.getPartition()), r.getFirstOffset(), last, error));
    }
  }

  private void tell(SettleFailure f) {
    try {
      failureHandler.onFailure(f);
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "settle failure handler failed: " + e);
    }
  }

  private String awaitMemberId(long deadline) {
    if (config.clientId() != null) {
      return config.clientId();
    }
    ReceiveStream s = awaitReadyStream(deadline, null);
    if (Thread.currentThread().isInterrupted()) {
      throw new BrookException("INTERRUPTED", "flush was interrupted");
    }
    throwIfFatal();
    if (s == null) {
      throw new BrookTimeoutException("TIMEOUT", "no stream to the broker within " + config.requestTimeout());
    }
    return s.memberId();
  }

  private List<SettleFailure> failures(List<io.brook.protocol.v1.SettleFailure> wire) {
    List<SettleFailure> out = new ArrayList<>(wire.size());
    for (io.brook.protocol.v1.SettleFailure f : wire) {
      OffsetRange r = f.getRange();
      long last = r.hasLastOffset() ? r.getLastOffset() : r.getFirstOffset();
      out.add(new SettleFailure(new TopicPartition(r.getTopic(), Math.max(0, r.getPartition())), r.getFirstOffset(),
          last, ErrorMapping.fromCode(f.getErrorCode(), f.getErrorMessage())));
    }
    settleFailures.addAndGet(out.size());
    return out;
  }

  private void connect() {
    ReceiveRequest first = ReceiveRequest.newBuilder().setGroup(config.group()).addAllTopics(config.topics())
        .setClientId(config.clientId() == null ? "" : config.clientId())
        .setFlowControl(FlowControl.newBuilder().setMaxOutstandingRecords(config.maxOutstandingRecords())
            .setMaxOutstandingBytes(config.maxOutstandingBytes()))
        .build();
    synchronized (streamLock) {
      if (finished) {
        return;
      }
      current = ReceiveStream.open(async, ++lastStreamId, first, listener);
    }
  }

  /** Ends the consumer for errors that another try would meet again. */
  private static boolean endsTheConsumer(Throwable error) {
    return switch (Status.fromThrowable(error).getCode()) {
      case NOT_FOUND, FAILED_PRECONDITION, INVALID_ARGUMENT, PERMISSION_DENIED, UNAUTHENTICATED, ABORTED,
          ALREADY_EXISTS, UNIMPLEMENTED, OUT_OF_RANGE -> true;
      default -> false;
    };
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new ClientClosedException("CLOSED", "the ack consumer of group " + config.group() + " is closed");
    }
  }

  private void throwIfFatal() {
    BrookException e = fatal;
    if (e != null) {
      throw e;
    }
  }

  /** The stream's events, on gRPC's threads. */
  private final class StreamListener implements ReceiveStream.Listener {
    @Override
    public void onMemberId(ReceiveStream stream, String memberId) {
      synchronized (backoff) {
        backoff.reset();
      }
      if (stream.id > 1) {
        LOG.log(System.Logger.Level.INFO, "ack consumer of group " + config.group() + ": receiving again as " + memberId);
      }
      if (pending.size() > 0) {
        execute(AckConsumer.this::sendPending); // settles that waited for this stream
      }
    }

    @Override
    public void onRecords(ReceiveStream stream, LeasedRecords batch) {
      for (LeasedRecord r : batch.getRecordsList()) {
        inbox.add(new Inbound(stream.id, batch.getTopic(), batch.getPartition(), r));
        received.incrementAndGet();
        if (r.getDeliveryAttempt() > 1) {
          redelivered.incrementAndGet();
        }
      }
    }

    @Override
    public void onFailures(ReceiveStream stream, long settledSeq, List<io.brook.protocol.v1.SettleFailure> wire) {
      List<SettleFailure> refused = failures(wire);
      refused.forEach(AckConsumer.this::tell);
      if (settledSeq > 0) {
        sent.answered(stream, settledSeq, refused); // for flush
      }
    }

    @Override
    public void onEnd(ReceiveStream stream, Throwable error) {
      sent.ended(stream);
      synchronized (streamLock) {
        if (stream.id != lastStreamId) {
          return; // an older stream
        }
        current = null;
      }
      if (finished || stream.closing()) {
        return; // close ended it, or is done: while close waits for a stream, it is opened again
      }
      if (error != null && endsTheConsumer(error)) {
        BrookException e = ErrorMapping.fromThrowable(error);
        fatal = e;
        inbox.add(WAKE);
        // The next poll throws it to the application, which reports it: not logged twice.
        LOG.log(System.Logger.Level.DEBUG, "ack consumer of group " + config.group() + " stopped: "
            + e.getMessage() + " (" + e.reason() + ")");
        return;
      }
      if (config.clientId() == null) {
        inbox.removeIf(o -> o instanceof Inbound in && in.stream() == stream.id); // their leases were handed back
      }
      reconnects.incrementAndGet();
      long delay;
      synchronized (backoff) {
        delay = backoff.nextDelayMs();
      }
      String why = error == null ? "the broker ended it" : Status.fromThrowable(error).getCode() + ": "
          + Status.fromThrowable(error).getDescription();
      // Once per break at INFO; the failed attempts while the broker is away at DEBUG.
      LOG.log(stream.memberId() != null ? System.Logger.Level.INFO : System.Logger.Level.DEBUG, "ack consumer of group "
          + config.group() + ": the stream ended (" + why + "); opening it again in " + delay + " ms");
      try {
        timer.schedule(AckConsumer.this::connectQuietly, delay, TimeUnit.MILLISECONDS);
      } catch (RejectedExecutionException closing) {
        // closed meanwhile
      }
    }

    private void execute(Runnable r) {
      try {
        timer.execute(r);
      } catch (RejectedExecutionException closing) {
        // closed meanwhile
      }
    }
  }

  private void connectQuietly() {
    try {
      connect();
    } catch (RuntimeException e) {
      // The channel refused at once (it is shut down): treat like a broken stream.
      LOG.log(System.Logger.Level.WARNING, "ack consumer of group " + config.group() + ": cannot open the stream: " + e);
    }
  }
}
