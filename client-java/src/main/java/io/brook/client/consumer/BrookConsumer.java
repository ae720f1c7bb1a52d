package io.brook.client.consumer;

import com.google.common.util.concurrent.MoreExecutors;
import io.brook.client.Deserializer;
import io.brook.client.TopicPartition;
import io.brook.client.admin.PartitionInfo;
import io.brook.client.errors.BrokerUnavailableException;
import io.brook.client.errors.BrookException;
import io.brook.client.errors.BrookTimeoutException;
import io.brook.client.errors.ClientClosedException;
import io.brook.client.errors.CommitFailedException;
import io.brook.client.errors.ConfigException;
import io.brook.client.errors.IllegalGenerationException;
import io.brook.client.errors.MemberReplacedException;
import io.brook.client.errors.NoOffsetForPartitionException;
import io.brook.client.errors.UnknownMemberException;
import io.brook.client.internal.Backoff;
import io.brook.client.internal.Connection;
import io.brook.client.internal.ErrorMapping;
import io.brook.protocol.v1.CommitOffsetsResponse;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * Reads records by offset, alone ({@link #assign}) or as a member of a consumer group ({@link
 * #subscribe}), like Kafka's consumer.
 *
 * <pre>{@code
 * ConsumerConfig config = ConsumerConfig.builder().broker("localhost:7070").groupId("billing")
 *     .autoOffsetReset(OffsetResetStrategy.EARLIEST).build();
 * try (BrookConsumer<String, String> consumer =
 *     new BrookConsumer<>(config, Serdes.stringDeserializer(), Serdes.stringDeserializer())) {
 *   consumer.subscribe(List.of("orders"));
 *   while (running) {
 *     for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
 *       process(r);
 *     }
 *   } // auto commit: what poll returned is committed at the next poll, on a rebalance and on close
 * }
 * }</pre>
 *
 * <p><b>Groups.</b> The first poll after {@link #subscribe} joins the group; the broker assigns the
 * member its partitions once the rebalance completes. A background thread heartbeats. When another
 * member joins or leaves, the next poll calls {@link ConsumerRebalanceListener#onPartitionsRevoked}
 * (the member still owns the partitions and can commit) and joins again; the rebalance is eager
 * unless {@code rebalance.protocol} is {@link RebalanceProtocol#COOPERATIVE}: then the member rejoins
 * in the background while poll keeps returning records, and only the partitions that move are revoked.
 * When the member was removed (its session expired, or the broker restarted and forgot it), its
 * partitions may already be another member's: the next poll calls {@link
 * ConsumerRebalanceListener#onPartitionsLost} and joins as a new member. A static member ({@code
 * group.instance.id}) fenced by a newer consumer with the same instance id hears of its partitions
 * lost, and from then on every poll throws {@link io.brook.client.errors.MemberReplacedException}
 * (it does not join again, not even after unsubscribe and subscribe). When the application does
 * not call poll within {@code max.poll.interval.ms}, the heartbeat thread leaves the group so that
 * the others get the partitions.
 *
 * <p><b>Positions.</b> A newly assigned partition starts at the group's committed offset, else at
 * {@code auto.offset.reset}. Poll moves the positions past the records it returns. {@link
 * #commitSync()} stores the positions (the next offset to read, as in Kafka). Delivery is at least
 * once: after a crash, a rebalance without a commit, or a lost membership, the records returned
 * since the last commit are read again.
 *
 * <p><b>The broker going away.</b> Poll retries with backoff ({@code reconnect.backoff.ms} doubling
 * up to {@code reconnect.backoff.max.ms}) while the broker is unreachable and returns no records
 * when its timeout passes; it throws {@link BrokerUnavailableException} only when the broker has
 * been unreachable for longer than {@code default.api.timeout.ms} (then the clock starts again, so
 * calling poll again keeps trying). When the broker is back the member rejoins (a restarted broker
 * has forgotten every member: the partitions are reported lost, then assigned again) and reads on
 * from the committed offsets. Blocking calls other than poll (commitSync, committed, position,
 * close) retry within their timeout, {@code default.api.timeout.ms} when none is given, then throw.
 *
 * <p><b>Threads.</b> Not thread-safe, like Kafka's consumer: one thread polls and makes every other
 * call; the rebalance listener runs on that thread. A call from a second thread while the first is
 * inside one throws {@link ConcurrentModificationException}. Only {@link #wakeup()} may be called
 * from any thread.
 */
public final class BrookConsumer<K, V> implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(BrookConsumer.class.getName());
  private static final int JOIN_ATTEMPTS = 5;

  private final ConsumerConfig config;
  private final Connection connection;
  private final Calls calls;
  private final OffsetCalls offsets;
  private final Fetcher<K, V> fetcher;
  private final Membership membership;
  /** The rejoin of a cooperative member (rebalance.protocol COOPERATIVE), else null. */
  private final CooperativeRejoin rejoin;
  private final PartitionStates states = new PartitionStates();
  private final ConsumerMetrics metrics = new ConsumerMetrics();
  private final Backoff pollBackoff;

  private List<String> subscription;
  private boolean manual;
  private ConsumerRebalanceListener listener = new ConsumerRebalanceListener() {};
  private boolean closed;
  private long nextAutoCommitNanos;
  /** When poll's calls started failing (retriably) in a row; 0 while they succeed. */
  private long failingSinceNanos;
  /** Async commits answered, whose callbacks wait for the polling thread. */
  private final Queue<Runnable> asyncCompletions = new ConcurrentLinkedQueue<>();
  /** Async commits sent and not yet answered. */
  private final Set<AsyncCommit> asyncInFlight = ConcurrentHashMap.newKeySet();

  // Kafka's light guard against use from two threads at once (re-entry from a listener is fine).
  private volatile Thread owner;
  private int depth;
  /** subscribe(Pattern): the broker resolves the subscription ({@link #subscription} is then empty); else null. */
  private Pattern subscribedPattern;

  public BrookConsumer(ConsumerConfig config, Deserializer<K> keyDeserializer, Deserializer<V> valueDeserializer) {
    this.config = Objects.requireNonNull(config, "config");
    Objects.requireNonNull(keyDeserializer, "keyDeserializer");
    Objects.requireNonNull(valueDeserializer, "valueDeserializer");
    this.connection = Connection.of(config.broker(), config.channel(), config.security());
    this.calls = new Calls(config.reconnectBackoffMs(), config.reconnectBackoffMaxMs());
    GroupServiceGrpc.GroupServiceBlockingStub groups = GroupServiceGrpc.newBlockingStub(connection.channel());
    // Answers complete on the transport thread: through gRPC's executor they took one more thread
    // hand-off to reach the polling thread (+0.1 ms at the median end to end).
    FetchServiceGrpc.FetchServiceFutureStub fetches = FetchServiceGrpc.newFutureStub(connection.channel())
        .withExecutor(MoreExecutors.directExecutor());
    this.offsets = new OffsetCalls(config, connection.channel(), metrics);
    this.fetcher = new Fetcher<>(config, fetches, keyDeserializer, valueDeserializer, metrics);
    this.membership = config.groupId() == null ? null : new Membership(config, groups);
    this.rejoin = membership != null && config.rebalanceProtocol() == RebalanceProtocol.COOPERATIVE
        ? new CooperativeRejoin(membership, config.groupId()) : null;
    this.pollBackoff = new Backoff(config.reconnectBackoffMs(), config.reconnectBackoffMaxMs());
  }

  public static <K, V> BrookConsumer<K, V> create(ConsumerConfig config, Deserializer<K> keys, Deserializer<V> values) {
    return new BrookConsumer<>(config, keys, values);
  }

  // --- subscription and assignment

  /** Joins the group for these topics at the next poll (replacing an earlier subscription). */
  public void subscribe(Collection<String> topics) {
    subscribe(topics, new ConsumerRebalanceListener() {});
  }

  /**
   * Joins the group for these topics at the next poll; the listener hears of partitions revoked,
   * assigned and lost. Needs a {@code group.id}.
   */
  public void subscribe(Collection<String> topics, ConsumerRebalanceListener listener) {
    run(() -> {
      checkSubscribable();
      Objects.requireNonNull(topics, "topics");
      if (topics.isEmpty() || topics.stream().anyMatch(t -> t == null || t.isBlank())) {
        throw new IllegalArgumentException("topics must be a non-empty list of names, got " + topics);
      }
      List<String> next = List.copyOf(new LinkedHashSet<>(topics));
      if (subscription != null && !subscription.equals(next)) {
        membership.requestRejoin(); // the next poll revokes and joins with the new topics
      }
      subscription = next;
      subscribedPattern = null;
      membership.usePattern(null);
      this.listener = Objects.requireNonNull(listener, "listener");
    });
  }

  /**
   * Joins the group at the next poll for every topic whose whole name the pattern matches (Kafka's
   * subscribe(Pattern)), replacing an earlier subscription.
   */
  public void subscribe(Pattern pattern) {
    subscribe(pattern, new ConsumerRebalanceListener() {});
  }

  /**
   * Joins the group at the next poll for every topic whose whole name the pattern matches; the
   * listener hears of partitions revoked, assigned and lost. The broker matches it (Java's syntax)
   * among the existing topics this consumer may consume, at every rebalance, and rebalances the group
   * when a matching topic is created or deleted; {@link #subscription()} names what it matched at the
   * last join. Only the pattern's text is sent: write flags inline ({@code (?i)}), not as
   * {@link Pattern#compile(String, int)}'s flags. Needs a {@code group.id}.
   */
  public void subscribe(Pattern pattern, ConsumerRebalanceListener listener) {
    run(() -> {
      checkSubscribable();
      Objects.requireNonNull(pattern, "pattern");
      if (pattern.pattern().isEmpty()) {
        throw new IllegalArgumentException("the topic pattern is empty");
      }
      if (pattern.flags() != 0) {
        throw new IllegalArgumentException("the broker matches the pattern's text only: write its flags inline, e.g. "
            + "(?i), instead of Pattern.compile flags (" + pattern.flags() + ")");
      }
      boolean changed = subscribedPattern == null || !subscribedPattern.pattern().equals(pattern.pattern());
      if (subscription != null && changed) {
        membership.requestRejoin(); // the next poll revokes and joins with the new pattern
      }
      subscription = List.of();
      subscribedPattern = pattern;
      membership.usePattern(pattern.pattern());
      this.listener = Objects.requireNonNull(listener, "listener");
    });
  }

  private void checkSubscribable() {
    if (membership == null) {
      throw new ConfigException("NO_GROUP_ID", "subscribe needs a group.id (use assign to read without a group)");
    }
    if (manual) {
      throw new IllegalStateException("assign and subscribe cannot be mixed: call unsubscribe first");
    }
  }

  /**
   * Reads these partitions without group membership (Kafka's assign): no rebalances, and commits
   * (which need a {@code group.id}) are made from outside the group. New partitions start at the
   * group's committed offset when there is a {@code group.id}, else at {@code auto.offset.reset}.
   */
  public void assign(Collection<TopicPartition> partitions) {
    run(() -> {
      if (subscription != null) {
        throw new IllegalStateException("assign and subscribe cannot be mixed: call unsubscribe first");
      }
      Objects.requireNonNull(partitions, "partitions");
      if (config.enableAutoCommit()) {
        autoCommitQuietly();
      }
      states.assign(new LinkedHashSet<>(partitions));
      manual = !partitions.isEmpty();
    });
  }

  /**
   * Gives up the subscription or assignment: a member commits (with auto commit), tells the
   * listener its partitions are revoked, and leaves the group.
   */
  public void unsubscribe() {
    run(() -> {
      if (subscription != null && membership.current() != null) {
        if (config.enableAutoCommit()) {
          autoCommitQuietly();
        }
        List<TopicPartition> owned = states.assigned();
        try {
          revokeAll(owned); // still a member: it may commit
        } finally {
          states.clear();
          leaveGroup();
          subscription = null;
          subscribedPattern = null;
        }
      } else {
        if (membership != null) {
          leaveGroup();
        }
        states.clear();
        subscription = null;
        subscribedPattern = null;
        manual = false;
      }
    });
  }

  /** Leaves the group; a cooperative rejoin under way is dropped: its answer is for the membership that ended. */
  private void leaveGroup() {
    membership.leaveGroup();
    if (rejoin != null) {
      rejoin.drop();
    }
  }

  /**
   * Close and unsubscribe: the listener hears of the partitions revoked; a cooperative member's only
   * when there are some (an eager member's every time, as Kafka's).
   */
  private void revokeAll(List<TopicPartition> owned) {
    if (rejoin == null || !owned.isEmpty()) {
      callListener(l -> l.onPartitionsRevoked(owned));
    }
  }

  /** What a join sends now: the topics, or the pattern (then no topics). */
  private CooperativeRejoin.Subscription joinSubscription() {
    return subscribedPattern == null ? new CooperativeRejoin.Subscription(subscription, "")
        : new CooperativeRejoin.Subscription(List.of(), subscribedPattern.pattern());
  }

  /**
   * The topics subscribed to (empty when none); with {@link #subscribe(Pattern)}, those the pattern
   * matched when the member last joined its group (empty before the first join).
   */
  public Set<String> subscription() {
    if (subscription == null) {
      return Set.of();
    }
    return subscribedPattern == null ? Set.copyOf(subscription) : membership.matchedTopics();
  }

  /**
   * The subscribed topics that the broker did not know when the member last joined its group (empty
   * when every one exists, before the first join, and without a subscription). The consumer logs a
   * warning once per missing topic and keeps polling: once the topic is created the group rebalances
   * and the member gets its partitions ({@link ConsumerRebalanceListener#onPartitionsAssigned}), as
   * Kafka's consumer waits for a topic to appear.
   */
  public Set<String> unknownTopics() {
    return subscription == null ? Set.of() : membership.unknownTopics();
  }

  /**
   * The partitions this consumer reads now: empty before the first join and during an eager rebalance;
   * a cooperative member keeps those it owns while it rejoins.
   */
  public Set<TopicPartition> assignment() {
    return Set.copyOf(states.assigned());
  }

  // --- polling

  /**
   * Joins or rejoins the group when needed (running the listener), then returns the records
   * fetched from the assigned partitions, at most {@code max.poll.records}; empty when none came
   * within the timeout. The positions move past the returned records. May take longer than the
   * timeout while a rebalance completes (at most about {@code max.poll.interval.ms}).
   *
   * @throws BrokerUnavailableException when the broker has been unreachable longer than {@code
   *     default.api.timeout.ms}
   * @throws NoOffsetForPartitionException a partition has no committed offset and {@code
   *     auto.offset.reset} is none
   * @throws io.brook.client.errors.OffsetOutOfRangeException a position is out of range and {@code
   *     auto.offset.reset} is none
   * @throws io.brook.client.errors.WakeupException {@link #wakeup()} was called
   * @throws io.brook.client.errors.MemberReplacedException a newer consumer with this {@code
   *     group.instance.id} took the member's place (Kafka's FencedInstanceIdException): close this one
   */
  public ConsumerRecords<K, V> poll(Duration timeout) {
    return call(() -> {
      if (subscription == null && !manual) {
        throw new IllegalStateException("poll needs subscribe or assign first");
      }
      long deadline = System.nanoTime() + timeout.toNanos();
      if (subscription != null) {
        membership.pollStarted();
      }
      try {
        runAsyncCallbacks();
        maybeAutoCommit();
        return pollUntil(deadline);
      } finally {
        metrics.updateLag(states);
        if (subscription != null) {
          membership.pollEnded();
        }
      }
    });
  }

  private ConsumerRecords<K, V> pollUntil(long deadline) {
    while (true) {
      calls.checkWakeup();
      try {
        if (subscription != null) {
          ensureMember();
        }
        calls.once(() -> {
          resolvePositions(states.withoutPosition());
          return null;
        });
        long leftMs = Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
        long waitMs = Math.min(leftMs, config.fetchMaxWaitMs());
        ConsumerRecords<K, V> records;
        if (!states.hasFetchable()) { // no position known yet, or every partition paused
          idle(waitMs);
          records = ConsumerRecords.empty();
        } else {
          records = calls.once(() -> fetcher.fetch(states, waitMs));
        }
        succeeded();
        if (!records.isEmpty() || System.nanoTime() - deadline >= 0) {
          return records;
        }
      } catch (BrookException e) {
        if (!e.isRetriable() && !(subscription != null && UnknownTopics.gone(e))) {
          throw e;
        }
        failedForNow(e);
        long leftMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (leftMs <= 0) {
          return ConsumerRecords.empty();
        }
        calls.sleep(Math.min(leftMs, pollBackoff.nextDelayMs()));
      }
    }
  }

  /** Nothing to fetch: wait for a rebalance notice (a member) or just the time (assign). */
  private void idle(long ms) {
    if (subscription == null) {
      calls.sleep(ms);
      return;
    }
    try {
      membership.awaitChange(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BrookException("INTERRUPTED", "interrupted while polling", e);
    }
  }

  /**
   * A retriable failure inside poll: retried with backoff. Past {@code default.api.timeout.ms} of
   * failures in a row it is thrown, as BrokerUnavailableException when the broker could not be
   * reached; the clock then starts again, so the next poll keeps trying.
   */
  private void failedForNow(BrookException e) {
    long now = System.nanoTime();
    boolean unreachable = Calls.unreachable(e);
    if (failingSinceNanos == 0) {
      failingSinceNanos = now;
      if (unreachable) {
        LOG.log(System.Logger.Level.WARNING, "broker at {0} not reachable ({1}: {2}); retrying",
            connection.address(), e.reason(), e.getMessage());
      } else {
        LOG.log(System.Logger.Level.WARNING, "{0} ({1}); retrying", e.getMessage(), e.reason());
      }
    }
    if (unreachable) {
      connection.channel().resetConnectBackoff(); // our own backoff paces the retries, not gRPC's (up to 2 min)
    }
    long failingMs = TimeUnit.NANOSECONDS.toMillis(now - failingSinceNanos);
    if (failingMs > config.defaultApiTimeoutMs()) {
      failingSinceNanos = 0;
      if (unreachable) {
        throw new BrokerUnavailableException(e.reason(), "the broker at " + connection.address() + " was unreachable "
            + "for " + failingMs + " ms (default.api.timeout.ms " + config.defaultApiTimeoutMs() + "): "
            + e.getMessage(), e);
      }
      throw e;
    }
  }

  private void succeeded() {
    if (failingSinceNanos != 0) {
      LOG.log(System.Logger.Level.INFO, "broker at {0} answers again", connection.address());
      failingSinceNanos = 0;
    }
    pollBackoff.reset();
  }

  // --- membership steps, on the polling thread

  /** Acts on what the heartbeat thread noticed, then joins when the member holds no assignment. */
  private void ensureMember() {
    if (rejoin != null && !cooperativeStep()) {
      return; // a cooperative rejoin is under way: keep fetching what the member owns
    }
    switch (membership.pending()) {
      case NOTHING -> {
        return;
      }
      case LOST -> {
        List<TopicPartition> gone = states.clear();
        membership.acknowledgeLost();
        if (!gone.isEmpty()) {
          if (!membership.replaced()) { // a replaced member does not join again: its own warning says so
            LOG.log(System.Logger.Level.WARNING, "lost partitions {0} of group {1} (removed from the group or fenced);"
                + " joining again", gone, config.groupId());
          }
          callListener(l -> l.onPartitionsLost(gone));
        }
        membership.throwIfReplaced();
      }
      case REVOKE_AND_REJOIN -> {
        if (rejoin != null) { // cooperative: nothing is revoked before the broker says what moves
          rejoin.start(joinSubscription(), states.assigned());
          return;
        }
        if (config.enableAutoCommit()) {
          autoCommitQuietly();
        }
        // Still the owner in a current generation: the listener may commit.
        List<TopicPartition> owned = states.assigned();
        try {
          callListener(l -> l.onPartitionsRevoked(owned));
        } finally {
          states.clear();
          membership.revoked();
        }
      }
      case JOIN -> {
        // nothing to give up
      }
    }
    join();
  }

  private void join() {
    List<TopicPartition> assigned = null;
    for (int attempt = 1; assigned == null; attempt++) {
      try {
        CooperativeRejoin.Subscription to = joinSubscription();
        assigned = calls.once(() -> membership.join(to.topics(), to.pattern(), List.of(), membership.leaveEpoch()));
      } catch (UnknownMemberException | IllegalGenerationException e) {
        // Removed or fenced while joining (a restart, a session that ran out): join again.
        if (attempt >= JOIN_ATTEMPTS) {
          throw e;
        }
      }
    }
    states.assign(assigned);
    metrics.rebalanced();
    nextAutoCommitNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.autoCommitIntervalMs());
    List<TopicPartition> now = assigned;
    callListener(l -> l.onPartitionsAssigned(now));
  }

  /**
   * A cooperative member's rejoin: answers false while it is under way. Once answered, the partitions
   * that moved away are committed (auto commit), told to the listener as revoked and dropped, then
   * the listener hears of the added ones; when some moved away, or the subscription changed since the
   * join was sent, the member rejoins at once (the broker is already rebalancing to hand them over),
   * as Kafka's cooperative protocol does. Answers true when the next step is the usual one: the member
   * was lost meanwhile (removed, fenced, or it left for not polling), or the join must be made again.
   */
  private boolean cooperativeStep() {
    if (!rejoin.underWay()) {
      return true;
    }
    List<TopicPartition> assigned;
    try {
      assigned = rejoin.answer();
    } catch (UnknownMemberException | MemberReplacedException e) {
      // Removed meanwhile (session, restart) or fenced: Membership.join marked the member lost, so the
      // next step tells the listener its partitions are lost (and a fenced member's poll throws).
      return true;
    } catch (IllegalGenerationException e) {
      membership.requestRejoin(); // superseded: join again
      return true;
    } catch (BrookException e) {
      membership.requestRejoin(); // not answered (broker unreachable, superseded): join again after the backoff
      throw e;
    }
    if (assigned == null) {
      return false;
    }
    if (membership.pending() == Membership.Pending.LOST) {
      return true; // lost after the broker answered (e.g. the poll deadline passed): every partition is lost
    }
    List<TopicPartition> revoked = new ArrayList<>(states.assigned());
    revoked.removeAll(assigned);
    List<TopicPartition> added = new ArrayList<>(assigned);
    added.removeAll(states.assigned());
    RuntimeException failure = null;
    try {
      if (!revoked.isEmpty()) {
        if (config.enableAutoCommit()) {
          Map<TopicPartition, Long> positions = new HashMap<>(states.knownPositions());
          positions.keySet().retainAll(revoked);
          commitQuietly(positions);
        }
        callListener(l -> l.onPartitionsRevoked(revoked)); // still the owner: the listener may commit
      }
    } catch (RuntimeException e) {
      failure = e; // thrown once the added partitions were announced too, as Kafka does
    } finally {
      states.assign(assigned); // kept partitions keep their positions
      metrics.rebalanced();
      if (!revoked.isEmpty() || !rejoin.joined().equals(joinSubscription())) {
        membership.requestRejoin();
      }
    }
    try {
      callListener(l -> l.onPartitionsAssigned(added));
    } catch (RuntimeException e) {
      if (failure == null) {
        failure = e;
      } else {
        failure.addSuppressed(e);
      }
    }
    if (failure != null) {
      throw failure;
    }
    return false; // fetch first; a rejoin the revocation asked for starts at the next poll step
  }

  private void callListener(Consumer<ConsumerRebalanceListener> callback) {
    callback.accept(listener);
  }

  /** Starts the given partitions: a pending seek to an end, else the committed offset, else auto.offset.reset. */
  private void resolvePositions(List<TopicPartition> partitions) {
    if (partitions.isEmpty()) {
      return;
    }
    List<TopicPartition> needCommitted = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      if (states.pendingReset(tp) == null) {
        needCommitted.add(tp);
      }
    }
    if (config.groupId() != null && !needCommitted.isEmpty()) {
      offsets.committed(needCommitted).forEach((tp, commit) -> states.seek(tp, commit.offset()));
    }
    Map<OffsetResetStrategy, List<TopicPartition>> toReset = new EnumMap<>(OffsetResetStrategy.class);
    for (TopicPartition tp : partitions) {
      if (states.position(tp) == null) {
        OffsetResetStrategy how = states.pendingReset(tp) != null ? states.pendingReset(tp) : config.autoOffsetReset();
        toReset.computeIfAbsent(how, h -> new ArrayList<>()).add(tp);
      }
    }
    List<TopicPartition> none = toReset.remove(OffsetResetStrategy.NONE);
    toReset.forEach((how, tps) -> offsets.boundaries(tps, how).forEach(states::seek));
    if (none != null) {
      throw new NoOffsetForPartitionException(Set.copyOf(none), "no committed offset for " + none
          + (config.groupId() == null ? " (no group.id)" : " in group " + config.groupId())
          + " and auto.offset.reset is none: seek them first");
    }
  }

  // --- commits

  /** Commits the position of every assigned partition, retrying within {@code default.api.timeout.ms}. */
  public void commitSync() {
    commitSync(Duration.ofMillis(config.defaultApiTimeoutMs()));
  }

  public void commitSync(Duration timeout) {
    run(() -> commitSync(OffsetAndMetadata.of(states.knownPositions()), timeout));
  }

  /**
   * Commits these offsets, each the next offset to read of its partition (Kafka's semantics), with
   * its metadata.
   */
  public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
    commitSync(offsets, Duration.ofMillis(config.defaultApiTimeoutMs()));
  }

  /**
   * Commits these offsets, retrying while the broker is unreachable until the timeout passes.
   *
   * @throws CommitFailedException when the member is not in the group's current generation (it
   *     was removed, or a rebalance is running); the next poll rejoins
   * @throws io.brook.client.errors.MemberReplacedException a static member fenced by a newer consumer
   *     with its {@code group.instance.id}: close this one
   * @throws ConfigException without a {@code group.id}
   * @throws io.brook.client.errors.InvalidRequestException metadata longer than 4096 bytes (UTF-8)
   */
  public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
    run(() -> {
      requireGroup("commit");
      if (offsets.isEmpty()) {
        return;
      }
      Map<TopicPartition, OffsetAndMetadata> copy = Map.copyOf(offsets);
      ConsumerGroupMetadata as = commitMembership();
      try {
        calls.retrying(timeout.toMillis(), () -> {
          this.offsets.commit(as.memberId(), as.generation(), copy);
          return null;
        });
      } catch (BrookException e) {
        if (subscription != null && membership.fencedOrRemoved(e, as)) {
          throw new CommitFailedException(e.reason(), "commit refused: " + e.getMessage() + "; the partitions may "
              + "belong to another member now, the next poll joins again", e);
        }
        throw e;
      }
      runAsyncCallbacks(); // Kafka's order: earlier async commits are reported by the next sync one
    });
  }

  /** {@link #commitAsync(Map, OffsetCommitCallback)} of every position; a failure is logged. */
  public void commitAsync() {
    commitAsync((OffsetCommitCallback) null);
  }

  /** {@link #commitAsync(Map, OffsetCommitCallback)} of every position. */
  public void commitAsync(OffsetCommitCallback callback) {
    run(() -> commitAsync(OffsetAndMetadata.of(states.knownPositions()), callback));
  }

  /**
   * Sends the commit and returns at once; there is no retry. The callback (null: failures are
   * logged) runs on the polling thread inside a later poll, commitSync or close, which waits up to
   * its timeout for commits still under way.
   */
  public void commitAsync(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
    run(() -> {
      requireGroup("commit");
      AsyncCommit commit = new AsyncCommit(Map.copyOf(offsets), callback);
      ConsumerGroupMetadata as;
      try {
        as = commitMembership();
      } catch (CommitFailedException e) {
        commit.complete(e);
        return;
      }
      asyncInFlight.add(commit);
      this.offsets.commitAsync(as.memberId(), as.generation(), commit.offsets, new StreamObserver<>() {
        private BrookException refused;

        @Override
        public void onNext(CommitOffsetsResponse response) {
          try {
            OffsetCalls.checkCommitted(response);
          } catch (BrookException e) {
            refused = e;
          }
        }

        @Override
        public void onError(Throwable t) {
          BrookException e = ErrorMapping.fromThrowable(t);
          if (subscribedAtCommit(as) && membership.fencedOrRemoved(e, as)) {
            e = new CommitFailedException(e.reason(), "commit refused: " + e.getMessage() + "; the partitions may "
                + "belong to another member now, the next poll joins again", e);
          }
          commit.complete(e);
        }

        @Override
        public void onCompleted() {
          commit.complete(refused);
        }
      });
    });
  }

  private boolean subscribedAtCommit(ConsumerGroupMetadata as) {
    return !as.memberId().isEmpty();
  }

  /** One commitAsync: its callback runs once, for its answer or for close giving up on it. */
  private final class AsyncCommit {
    final Map<TopicPartition, OffsetAndMetadata> offsets;
    final OffsetCommitCallback callback;
    final AtomicBoolean completed = new AtomicBoolean();

    AsyncCommit(Map<TopicPartition, OffsetAndMetadata> offsets, OffsetCommitCallback callback) {
      this.offsets = offsets;
      this.callback = callback;
    }

    /** Any thread: queues the callback for the polling thread (the first outcome wins). */
    void complete(BrookException e) {
      if (!completed.compareAndSet(false, true)) {
        return;
      }
      asyncCompletions.add(() -> {
        if (callback != null) {
          callback.onComplete(offsets, e);
        } else if (e != null) {
          LOG.log(System.Logger.Level.WARNING, "async commit to group {0} failed: {1} ({2})", config.groupId(),
              e.getMessage(), e.reason());
        }
      });
      asyncInFlight.remove(this); // after the callback is queued: a waiter that sees none left finds it
    }
  }

  /** On the polling thread: the callbacks of async commits that have ended. */
  private void runAsyncCallbacks() {
    for (Runnable r = asyncCompletions.poll(); r != null; r = asyncCompletions.poll()) {
      r.run();
    }
  }

  /**
   * For close: waits (until the deadline) for async commits under way; those still unanswered then
   * are reported to their callbacks as of unknown outcome. Then runs the callbacks.
   */
  private void awaitAsyncCommits(long deadline) {
    while (!asyncInFlight.isEmpty() && System.nanoTime() - deadline < 0) {
      calls.sleep(5);
    }
    for (AsyncCommit c : List.copyOf(asyncInFlight)) {
      c.complete(new BrookTimeoutException("TIMEOUT", "the consumer closed before the broker answered this async "
          + "commit: whether it was stored is unknown"));
    }
    runAsyncCallbacks();
  }

  /** The membership a commit is made in: this member's current one, or none (assign: from outside the group). */
  private ConsumerGroupMetadata commitMembership() {
    if (subscription == null) {
      return new ConsumerGroupMetadata(config.groupId(), "", 0);
    }
    membership.throwIfReplaced(); // fenced for good: no poll joins again
    ConsumerGroupMetadata as = membership.current();
    if (as == null) {
      throw new CommitFailedException("NOT_A_MEMBER", "cannot commit: not a member of group " + config.groupId()
          + " at the moment (rebalancing, or removed); the next poll joins again");
    }
    return as;
  }

  /**
   * This consumer's counters, read live from any thread (records and bytes fetched, lag per
   * partition, rebalances, commit latency).
   */
  public ConsumerMetrics metrics() {
    return metrics;
  }

  /**
   * The group's commits of these partitions (offset and metadata); a partition without one is
   * absent.
   */
  public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions) {
    return committed(partitions, Duration.ofMillis(config.defaultApiTimeoutMs()));
  }

  public Map<TopicPartition, OffsetAndMetadata> committed(Set<TopicPartition> partitions, Duration timeout) {
    return call(() -> {
      requireGroup("committed");
      if (partitions.isEmpty()) {
        return Map.of();
      }
      return Map.copyOf(calls.retrying(timeout.toMillis(), () -> offsets.committed(Set.copyOf(partitions))));
    });
  }

  private void maybeAutoCommit() {
    if (config.enableAutoCommit() && System.nanoTime() - nextAutoCommitNanos >= 0) {
      nextAutoCommitNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.autoCommitIntervalMs());
      autoCommitQuietly();
    }
  }

  /** Auto commit: failures are logged, not thrown (the records are then read again later, at least once). */
  private void autoCommitQuietly() {
    commitQuietly(states.knownPositions());
  }

  private void commitQuietly(Map<TopicPartition, Long> positions) {
    if (positions.isEmpty() || (subscription != null && membership.current() == null)) {
      return;
    }
    try {
      commitSync(OffsetAndMetadata.of(positions), Duration.ofMillis(config.requestTimeoutMs()));
    } catch (BrookException e) {
      LOG.log(System.Logger.Level.WARNING, "auto commit to group {0} failed: {1} ({2})", config.groupId(),
          e.getMessage(), e.reason());
    }
  }

  private void requireGroup(String what) {
    if (config.groupId() == null) {
      throw new ConfigException("NO_GROUP_ID", what + " needs a group.id");
    }
  }

  // --- positions

  /** The next fetch of this assigned partition starts at this offset. */
  public void seek(TopicPartition partition, long offset) {
    run(() -> {
      requireAssigned(partition);
      if (offset < 0) {
        throw new IllegalArgumentException("offset must be >= 0, got " + offset);
      }
      states.seek(partition, offset);
    });
  }

  /** These partitions (all assigned ones when empty) start over at their earliest offset, looked up lazily. */
  public void seekToBeginning(Collection<TopicPartition> partitions) {
    seekTo(partitions, OffsetResetStrategy.EARLIEST);
  }

  /** These partitions (all assigned ones when empty) go to their end, looked up lazily. */
  public void seekToEnd(Collection<TopicPartition> partitions) {
    seekTo(partitions, OffsetResetStrategy.LATEST);
  }

  private void seekTo(Collection<TopicPartition> partitions, OffsetResetStrategy where) {
    run(() -> {
      Collection<TopicPartition> which = partitions.isEmpty() ? states.assigned() : partitions;
      which.forEach(this::requireAssigned);
      which.forEach(tp -> states.requestReset(tp, where));
    });
  }

  /**
   * Stops fetching these assigned partitions until {@link #resume}: poll returns none of their
   * records (those already fetched wait in the consumer) while the member stays in the group, its
   * heartbeats and polls going on as usual; positions, commits and seeks work as before. A
   * rebalance that revokes a partition ends its pause (an eager rebalance revokes every partition, a
   * cooperative one only those that move), as Kafka's consumer does; {@link #assign} keeps the pauses of the partitions it keeps.
   *
   * @throws IllegalStateException a partition is not assigned to this consumer (nothing is paused then)
   */
  public void pause(Collection<TopicPartition> partitions) {
    run(() -> {
      List<TopicPartition> which = List.copyOf(partitions);
      which.forEach(this::requireAssigned);
      which.forEach(states::pause);
    });
  }

  /**
   * Fetches these paused partitions again from their positions; resuming one that is not paused
   * does nothing.
   *
   * @throws IllegalStateException a partition is not assigned to this consumer (nothing is resumed then)
   */
  public void resume(Collection<TopicPartition> partitions) {
    run(() -> {
      List<TopicPartition> which = List.copyOf(partitions);
      which.forEach(this::requireAssigned);
      which.forEach(states::resume);
    });
  }

  /** The assigned partitions paused now. */
  public Set<TopicPartition> paused() {
    return call(() -> Set.copyOf(states.paused()));
  }

  /** The next offset poll reads from this assigned partition, looking it up when not known yet. */
  public long position(TopicPartition partition) {
    return position(partition, Duration.ofMillis(config.defaultApiTimeoutMs()));
  }

  public long position(TopicPartition partition, Duration timeout) {
    return call(() -> {
      requireAssigned(partition);
      if (states.position(partition) == null) {
        calls.retrying(timeout.toMillis(), () -> {
          resolvePositions(List.of(partition));
          return null;
        });
      }
      return states.position(partition);
    });
  }

  /**
   * How far this assigned partition's position is behind its end, as the last fetch saw it; empty
   * when no fetch of it answered yet.
   */
  public OptionalLong currentLag(TopicPartition partition) {
    return call(() -> {
      requireAssigned(partition);
      Long end = states.endOffset(partition);
      Long position = states.position(partition);
      return end == null || position == null ? OptionalLong.empty() : OptionalLong.of(Math.max(0, end - position));
    });
  }

  /** The log-start offset of each partition (Kafka's beginningOffsets), retrying within {@code default.api.timeout.ms}. */
  public Map<TopicPartition, Long> beginningOffsets(Collection<TopicPartition> partitions) {
    return boundaries(partitions, OffsetResetStrategy.EARLIEST);
  }

  /** The end offset of each partition: the offset the next record produced gets. */
  public Map<TopicPartition, Long> endOffsets(Collection<TopicPartition> partitions) {
    return boundaries(partitions, OffsetResetStrategy.LATEST);
  }

  private Map<TopicPartition, Long> boundaries(Collection<TopicPartition> partitions, OffsetResetStrategy which) {
    return call(() -> partitions.isEmpty() ? Map.of() : Map.copyOf(calls.retrying(config.defaultApiTimeoutMs(),
        () -> offsets.boundaries(List.copyOf(partitions), which))));
  }

  /**
   * Of each partition, the first offset whose record has a timestamp at or after the one given (ms
   * since the epoch), or the end offset when no record is that recent (Kafka answers null there).
   */
  public Map<TopicPartition, Long> offsetsForTimes(Map<TopicPartition, Long> timestamps) {
    return call(() -> timestamps.isEmpty() ? Map.of() : Map.copyOf(calls.retrying(config.defaultApiTimeoutMs(),
        () -> offsets.forTimes(timestamps))));
  }

  /**
   * The topic's partitions as the broker describes them now, assigned to this consumer or not
   * (Kafka's partitionsFor; the admin's {@link PartitionInfo}), retrying within {@code
   * default.api.timeout.ms} while the broker is unreachable.
   *
   * @throws io.brook.client.errors.UnknownTopicException the topic does not exist
   */
  public List<PartitionInfo> partitionsFor(String topic) {
    return partitionsFor(topic, Duration.ofMillis(config.defaultApiTimeoutMs()));
  }

  public List<PartitionInfo> partitionsFor(String topic, Duration timeout) {
    Objects.requireNonNull(topic, "topic");
    return call(() -> calls.retrying(timeout.toMillis(), () -> offsets.partitionsFor(topic)));
  }

  /** The membership held now; generation -1 when none (or without a group.id). */
  public ConsumerGroupMetadata groupMetadata() {
    return membership == null ? new ConsumerGroupMetadata(null, "", -1) : membership.metadata();
  }

  private void requireAssigned(TopicPartition tp) {
    if (!states.isAssigned(tp)) {
      throw new IllegalStateException("no current assignment for partition " + tp + " (assigned: "
          + states.assigned() + ")");
    }
  }

  // --- wakeup and close

  /**
   * From any thread: the blocking call running now on the polling thread, or its next one, throws
   * {@link io.brook.client.errors.WakeupException}. The usual way to stop a poll loop from outside.
   */
  public void wakeup() {
    calls.wakeup();
    if (membership != null) {
      membership.poke();
    }
  }

  /** {@link #close(Duration)} with {@code default.api.timeout.ms}. */
  @Override
  public void close() {
    close(Duration.ofMillis(config.defaultApiTimeoutMs()));
  }

  /**
   * Waits for async commits under way (their callbacks run here; one still unanswered at the
   * timeout is reported to its callback as of unknown outcome, {@link BrookTimeoutException}),
   * commits the positions (auto commit), calls the listener's onPartitionsRevoked (or Lost), leaves
   * the group (a static member does not: it stays until its session times out), stops the heartbeat thread and closes its own channel. The timeout bounds the waits
   * for commits. A failed commit at close, or a failure of the listener, is thrown once everything
   * is closed.
   */
  public void close(Duration timeout) {
    acquire();
    RuntimeException failure = null;
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      if (closed) {
        return;
      }
      try {
        awaitAsyncCommits(deadline);
        if (subscription != null && membership.pending() == Membership.Pending.LOST) {
          List<TopicPartition> gone = states.clear();
          if (!gone.isEmpty()) {
            callListener(l -> l.onPartitionsLost(gone));
          }
        } else if (subscription != null && membership.current() != null) {
          if (config.enableAutoCommit()) {
            failure = commitAtClose(deadline);
          }
          revokeAll(states.assigned());
        } else if (manual && config.enableAutoCommit()) {
          failure = commitAtClose(deadline);
        }
      } catch (RuntimeException e) {
        if (failure != null) {
          e.addSuppressed(failure);
        }
        failure = e;
      }
    } finally {
      if (!closed) {
        closed = true;
        metrics.clearLag();
        fetcher.close();
        if (membership != null) {
          membership.close();
        }
        if (rejoin != null) {
          rejoin.close();
        }
        connection.close();
      }
      release();
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** The auto commit at close, within what is left of its timeout: its failure, or null. */
  private BrookException commitAtClose(long deadline) {
    try {
      commitSync(OffsetAndMetadata.of(states.knownPositions()),
          Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
      return null;
    } catch (BrookException e) {
      LOG.log(System.Logger.Level.WARNING, "commit at close of group {0} failed: {1} ({2})", config.groupId(),
          e.getMessage(), e.reason());
      return e;
    }
  }

  // --- one thread at a time

  private void run(Runnable r) {
    call(() -> {
      r.run();
      return null;
    });
  }

  private <T> T call(java.util.function.Supplier<T> body) {
    acquire();
    try {
      if (closed) {
        throw new ClientClosedException("CLOSED", "the consumer is closed");
      }
      return body.get();
    } finally {
      release();
    }
  }

  private void acquire() {
    Thread me = Thread.currentThread();
    synchronized (this) {
      if (owner != null && owner != me) {
        throw new ConcurrentModificationException("BrookConsumer is not safe for use by several threads: "
            + owner.getName() + " is using it");
      }
      owner = me;
      depth++;
    }
  }

  private synchronized void release() {
    if (--depth == 0) {
      owner = null;
    }
  }
}
