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
 * what is waiting at once, in one unary {@code Settle} call, and returns what the broker refused.
 *
 * <p><b>Failures.</b> A settle the broker does not apply ({@code NOT_LEASED}, {@code
 * LEASE_EXPIRED}, {@code ALREADY_SETTLED}, ...) is a {@link SettleFailure} carrying the typed
 * exception: returned by {@link #flush()} for the settles it sent, given to the {@link
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
  private final Backoff backoff;
  private final SettleFailureHandler failureHandler;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final Object streamLock = new Object();
  private final ReceiveStream.Listener listener = new StreamListener();
  /** The open stream; null while reconnecting. Guarded by streamLock. */
  private volatile ReceiveStream current;
  private long lastStreamId;
  private volatile BrookException fatal;

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
        ConsumerRecord<K, V> r = RecordConversion.toConsumerRecord(in.topic(), in.partition(), in.leased().getRecord(),
            keys, values);
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
   * Sends every waiting settle now, in one {@code Settle} call, and returns those the broker did not
   * apply. Waits for a stream (while reconnecting) at most {@code requestTimeout}.
   *
   * @throws BrookException the call failed (the broker is unreachable: {@code
   *     BrokerUnavailableException}, retriable); its settles wait for the next send
   */
  public List<SettleFailure> flush() {
    checkOpen();
    if (pending.size() == 0) {
      return List.of();
    }
    long deadline = System.nanoTime() + config.requestTimeout().toNanos();
    String member = awaitMemberId(deadline);
    PendingSettles.Batch batch = pending.drain();
    if (batch.isEmpty()) {
      return List.of();
    }
    try {
      SettleResponse response = blocking.withDeadlineAfter(Math.max(1, deadline - System.nanoTime()),
          TimeUnit.NANOSECONDS).settle(batch.toSettleRequest(config.group(), member));
      settleCalls.incrementAndGet();
      return failures(response.getFailuresList());
    } catch (RuntimeException e) {
      pending.restore(batch);
      throw ErrorMapping.fromThrowable(e);
    }
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

  public AckConsumerConfig config() {
    return config;
  }

  public AckConsumerStats stats() {
    return new AckConsumerStats(received.get(), redelivered.get(), queued.get(), settleMessages.get(),
        settleCalls.get(), settleFailures.get(), reconnects.get());
  }

  /**
   * Sends the waiting settles, ends the stream and waits (at most {@code requestTimeout}) until the
   * broker applied them; failures go to the handler. Records received but never returned by {@link
   * #poll} are handed back (nacked). Records polled and not settled are handed back by the broker
   * when the stream ends, or, with a {@code clientId}, stay leased until their leases run out.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    inbox.add(WAKE);
    long deadline = System.nanoTime() + config.requestTimeout().toNanos();
    ReceiveStream s;
    synchronized (streamLock) {
      s = current;
    }
    try {
      if (s != null) {
        if (s.memberId() != null) {
          sendPending();
        }
        s.halfClose();
        if (!s.awaitEnd(Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())))) {
          LOG.log(System.Logger.Level.WARNING, "ack consumer of group " + config.group()
              + ": the broker did not end the stream in time; the last settles may not be applied");
          s.cancel("closed");
        }
      }
      handBack(deadline);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
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
    ReceiveStream s = current;
    if (s == null || s.memberId() == null || pending.size() == 0) {
      return;
    }
    PendingSettles.Batch batch = pending.drain();
    if (batch.isEmpty()) {
      return;
    }
    if (s.send(batch.toReceiveRequest())) {
      settleMessages.incrementAndGet();
    } else {
      pending.restore(batch);
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

  /** After the stream ended: settles still waiting, and records never polled, for a member that outlives it. */
  private void handBack(long deadline) {
    if (config.clientId() == null) {
      if (pending.size() > 0) {
        LOG.log(System.Logger.Level.WARNING, "ack consumer of group " + config.group() + ": " + pending.size()
            + " settles were not sent (no stream to the broker); those records will be delivered again");
      }
      return; // the broker handed this member's leases back when its stream ended
    }
    for (Object o : inbox) {
      if (o instanceof Inbound in) {
        pending.add(in.topic(), in.partition(), in.leased().getRecord().getOffset(), PendingSettles.Kind.NACK, 0);
      }
    }
    inbox.clear();
    PendingSettles.Batch batch = pending.drain();
    if (batch.isEmpty()) {
      return;
    }
    try {
      SettleResponse response = blocking.withDeadlineAfter(Math.max(1, deadline - System.nanoTime()),
          TimeUnit.NANOSECONDS).settle(batch.toSettleRequest(config.group(), config.clientId()));
      settleCalls.incrementAndGet();
      failures(response.getFailuresList()).forEach(failureHandler::onFailure);
    } catch (RuntimeException e) {
      BrookException b = ErrorMapping.fromThrowable(e);
      LOG.log(System.Logger.Level.WARNING, "ack consumer of group " + config.group() + ": " + batch.count()
          + " settles were not sent at close (" + b.getMessage() + "); those records will be delivered again");
    }
  }

  private String awaitMemberId(long deadline) {
    if (config.clientId() != null) {
      return config.clientId();
    }
    while (true) {
      throwIfFatal();
      checkOpen();
      ReceiveStream s = current;
      if (s != null && s.memberId() != null) {
        return s.memberId();
      }
      if (System.nanoTime() >= deadline) {
        throw new BrookTimeoutException("TIMEOUT", "no stream to the broker within " + config.requestTimeout());
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BrookException("INTERRUPTED", "flush was interrupted", e);
      }
    }
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
      if (closed.get()) {
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
    public void onFailures(ReceiveStream stream, List<io.brook.protocol.v1.SettleFailure> wire) {
      for (SettleFailure f : failures(wire)) {
        try {
          failureHandler.onFailure(f);
        } catch (RuntimeException e) {
          LOG.log(System.Logger.Level.WARNING, "settle failure handler failed: " + e);
        }
      }
    }

    @Override
    public void onEnd(ReceiveStream stream, Throwable error) {
      synchronized (streamLock) {
        if (stream.id != lastStreamId) {
          return; // an older stream
        }
        current = null;
      }
      if (closed.get() || stream.closing()) {
        return;
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
