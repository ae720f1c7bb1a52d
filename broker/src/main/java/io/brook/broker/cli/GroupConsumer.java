package io.brook.broker.cli;

import com.google.rpc.ErrorInfo;
import io.brook.protocol.v1.Boundary;
import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.CommitOffsetsResponse;
import io.brook.protocol.v1.CommitResult;
import io.brook.protocol.v1.CommittedOffset;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.FetchResponse;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.HeartbeatRequest;
import io.brook.protocol.v1.HeartbeatResponse;
import io.brook.protocol.v1.JoinGroupRequest;
import io.brook.protocol.v1.JoinGroupResponse;
import io.brook.protocol.v1.LeaveGroupRequest;
import io.brook.protocol.v1.ListOffsetsRequest;
import io.brook.protocol.v1.OffsetAnswer;
import io.brook.protocol.v1.OffsetCommit;
import io.brook.protocol.v1.OffsetQuery;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.Position;
import io.brook.protocol.v1.Record;
import io.brook.protocol.v1.TopicPartitions;
import io.grpc.Channel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * An offset-mode member of a consumer group (Kafka's consumer, over {@code brook.v1.GroupService}
 * and {@code FetchService}).
 *
 * <p>The first {@link #poll} joins the group; the broker answers the member's partitions once the
 * rebalance completes. Each partition starts at the group's committed offset, or, when nothing is
 * committed, at {@link Settings#autoOffsetReset}. {@link #poll} fetches from every assigned partition
 * and advances the positions past the records it returns; {@link #commit()} stores the positions.
 *
 * <p>A background thread heartbeats every {@code heartbeat_interval_ms}. When the broker answers
 * {@code rejoin=true} (another member joined or left), the next {@link #poll} calls
 * {@link RebalanceListener#onPartitionsRevoked} (commit there what was processed) and joins again:
 * the rebalance is eager, every member gives up all its partitions. When the member was removed
 * ({@code UNKNOWN_MEMBER_ID}) or fenced ({@code ILLEGAL_GENERATION}) its partitions may already
 * belong to another member, so {@link RebalanceListener#onPartitionsLost} is called instead and no
 * commit is possible. When the application does not call {@link #poll} within
 * {@link Settings#maxPollIntervalMs}, the heartbeat thread leaves the group (the partitions go to
 * the other members) and the next poll joins again as a new member.
 *
 * <p>Not thread-safe: one application thread calls poll, commit, seek and close; rebalance
 * callbacks run on that thread, inside {@link #poll} (and {@link #close}). Only
 * {@code io.brook.protocol} and gRPC are used, so that this class can move into the Java client.
 */
public final class GroupConsumer implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(GroupConsumer.class.getName());
  /** Beyond the rebalance timeout, how long a JoinGroup may take before the client gives up on it. */
  private static final long JOIN_GRACE_MS = 15_000;
  private static final long CALL_DEADLINE_MS = 10_000;
  private static final int JOIN_ATTEMPTS = 5;

  /** One partition of a topic. */
  public record TopicPartition(String topic, int partition) {
    public TopicPartition {
      Objects.requireNonNull(topic, "topic");
    }

    @Override
    public String toString() {
      return topic + ":" + partition;
    }
  }

  /** A record as poll returns it; {@code record.getOffset()} is its offset. */
  public record ConsumedRecord(String topic, int partition, Record record) {
    public long offset() {
      return record.getOffset();
    }

    public TopicPartition topicPartition() {
      return new TopicPartition(topic, partition);
    }
  }

  /** Where a partition without a committed offset (or whose offset is out of range) starts. */
  public enum OffsetReset { EARLIEST, LATEST, NONE }

  /**
   * Called on the polling thread. Eager rebalancing: revoked gets every partition the member had,
   * assigned every partition it has now.
   */
  public interface RebalanceListener {
    /** Before the member rejoins: it still owns these partitions, so this is the place to commit. */
    default void onPartitionsRevoked(List<TopicPartition> partitions) {}

    /** After a join, once positions are known: the partitions the member owns from now on. */
    default void onPartitionsAssigned(List<TopicPartition> partitions) {}

    /**
     * The member was removed, fenced, or left for not polling: the partitions may belong to
     * another member already, and committing them is no longer possible.
     */
    default void onPartitionsLost(List<TopicPartition> partitions) {}
  }

  /** What a member is configured with. */
  public static final class Settings {
    private final String group;
    private final List<String> topics;
    private String clientId = "";
    private int sessionTimeoutMs = 10_000;
    private int maxPollIntervalMs = 300_000;
    private OffsetReset autoOffsetReset = OffsetReset.LATEST;
    private int maxPollRecords = 500;
    private int maxFetchWaitMs = 500;

    public Settings(String group, List<String> topics) {
      this.group = Objects.requireNonNull(group, "group");
      this.topics = List.copyOf(topics);
      if (this.topics.isEmpty()) {
        throw new IllegalArgumentException("a member needs at least one topic");
      }
    }

    /** Shown in DescribeGroup. */
    public Settings clientId(String id) {
      this.clientId = Objects.requireNonNull(id);
      return this;
    }

    /** Silent this long, the member is removed (the broker bounds it: group.min/max.session.timeout.ms). */
    public Settings sessionTimeoutMs(int ms) {
      this.sessionTimeoutMs = positive(ms, "sessionTimeoutMs");
      return this;
    }

    /** Kafka's max.poll.interval.ms, sent as the rebalance timeout. */
    public Settings maxPollIntervalMs(int ms) {
      this.maxPollIntervalMs = positive(ms, "maxPollIntervalMs");
      return this;
    }

    public Settings autoOffsetReset(OffsetReset reset) {
      this.autoOffsetReset = Objects.requireNonNull(reset);
      return this;
    }

    /** The most records one poll returns. */
    public Settings maxPollRecords(int n) {
      this.maxPollRecords = positive(n, "maxPollRecords");
      return this;
    }

    /**
     * The longest one fetch waits for records. A rebalance is noticed between fetches, so this
     * bounds how long the member takes to rejoin.
     */
    public Settings maxFetchWaitMs(int ms) {
      this.maxFetchWaitMs = positive(ms, "maxFetchWaitMs");
      return this;
    }

    private static int positive(int v, String name) {
      if (v <= 0) {
        throw new IllegalArgumentException(name + " must be > 0, got " + v);
      }
      return v;
    }
  }

  /** A call that failed for a reason the application has to handle (not a transport failure). */
  public static class ConsumerException extends RuntimeException {
    public ConsumerException(String message) {
      super(message);
    }

    public ConsumerException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** A commit the broker refused because the member is no longer part of the current generation. */
  public static final class CommitFailedException extends ConsumerException {
    public CommitFailedException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final Settings settings;
  private final RebalanceListener listener;
  private final GroupServiceGrpc.GroupServiceBlockingStub groups;
  private final FetchServiceGrpc.FetchServiceBlockingStub fetches;
  private final Thread heartbeater;

  // Shared with the heartbeat thread; guarded by lock.
  private final Object lock = new Object();
  private String memberId = "";
  private int generation;
  /** The member holds the assignment of `generation`. */
  private boolean joined;
  /** A heartbeat answered rejoin=true: revoke, then join again. */
  private boolean rejoinRequested;
  /** Removed, fenced, or left for not polling: the partitions are gone without a revoke. */
  private boolean lost;
  private boolean closed;
  private int heartbeatIntervalMs = 3000;
  private long nextHeartbeatNanos;
  private boolean inPoll;
  private long lastPollNanos = System.nanoTime();

  // The polling thread's own.
  private List<TopicPartition> assignment = List.of();
  private final Map<TopicPartition, Long> positions = new LinkedHashMap<>();
  private final Map<TopicPartition, Long> endOffsets = new HashMap<>();
  private int rotation;

  /** The channel stays the caller's: {@link #close} does not shut it down. */
  public GroupConsumer(Channel channel, Settings settings, RebalanceListener listener) {
    this.settings = Objects.requireNonNull(settings);
    this.listener = listener == null ? new RebalanceListener() {} : listener;
    this.groups = GroupServiceGrpc.newBlockingStub(channel);
    this.fetches = FetchServiceGrpc.newBlockingStub(channel);
    this.heartbeater = new Thread(this::heartbeatLoop, "brook-heartbeat-" + settings.group);
    this.heartbeater.setDaemon(true);
    this.heartbeater.start();
  }

  // --- the application's calls

  /**
   * Joins or rejoins when needed, then returns the records fetched from the assigned partitions
   * (at most {@code maxPollRecords}), or an empty list when none came within the timeout. The
   * positions move past the returned records.
   */
  public List<ConsumedRecord> poll(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      ensureOpen();
      inPoll = true;
    }
    try {
      while (true) {
        ensureMember();
        long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        List<ConsumedRecord> records = fetchOnce((int) Math.max(0, Math.min(remainingMs, settings.maxFetchWaitMs)));
        if (!records.isEmpty() || System.nanoTime() - deadline >= 0) {
          return records;
        }
      }
    } finally {
      synchronized (lock) {
        inPoll = false;
        lastPollNanos = System.nanoTime();
      }
    }
  }

  /** Commits the position of every assigned partition (the next offset to read). */
  public void commit() {
    Map<TopicPartition, Long> offsets = new LinkedHashMap<>();
    for (TopicPartition tp : assignment) {
      Long position = positions.get(tp);
      if (position != null) {
        offsets.put(tp, position);
      }
    }
    commit(offsets);
  }

  /**
   * Commits these offsets (each the next offset to read) as this member, in its generation.
   *
   * @throws CommitFailedException when the member was removed or missed a rebalance; the next poll rejoins
   * @throws ConsumerException when the broker refused some partitions (the message names them)
   */
  public void commit(Map<TopicPartition, Long> offsets) {
    if (offsets.isEmpty()) {
      return;
    }
    String member;
    int gen;
    synchronized (lock) {
      ensureOpen();
      if (!joined || lost) {
        throw new CommitFailedException("not a member of group " + settings.group + " at the moment: the next poll "
            + "joins again", null);
      }
      member = memberId;
      gen = generation;
    }
    CommitOffsetsRequest.Builder request = CommitOffsetsRequest.newBuilder().setGroup(settings.group)
        .setMemberId(member).setGeneration(gen);
    offsets.forEach((tp, offset) -> request.addOffsets(OffsetCommit.newBuilder().setTopic(tp.topic())
        .setPartition(tp.partition()).setOffset(offset)));
    CommitOffsetsResponse response;
    try {
      response = groups.withDeadlineAfter(CALL_DEADLINE_MS, TimeUnit.MILLISECONDS).commitOffsets(request.build());
    } catch (StatusRuntimeException e) {
      if (fencedOrRemoved(e, member, gen)) {
        throw new CommitFailedException("commit refused: " + describe(e) + "; the next poll joins again", e);
      }
      throw e;
    }
    List<String> refused = new ArrayList<>();
    for (CommitResult r : response.getResultsList()) {
      if (r.getErrorCode() != ErrorCode.ERROR_CODE_UNSPECIFIED) {
        refused.add(r.getTopic() + ":" + r.getPartition() + " " + r.getErrorMessage() + " (" + r.getErrorCode() + ")");
      }
    }
    if (!refused.isEmpty()) {
      throw new ConsumerException("commit refused for " + String.join("; ", refused));
    }
  }

  /** The next fetch of this assigned partition starts at this offset. */
  public void seek(TopicPartition tp, long offset) {
    if (!assignment.contains(tp)) {
      throw new IllegalArgumentException(tp + " is not assigned to this member (it has " + assignment + ")");
    }
    positions.put(tp, offset);
  }

  /** The next offset poll reads from this partition, if it is assigned and its start is known. */
  public OptionalLong position(TopicPartition tp) {
    Long p = positions.get(tp);
    return p == null ? OptionalLong.empty() : OptionalLong.of(p);
  }

  /** The partition's end offset as the last fetch of it saw it. */
  public OptionalLong endOffset(TopicPartition tp) {
    Long e = endOffsets.get(tp);
    return e == null ? OptionalLong.empty() : OptionalLong.of(e);
  }

  /** The partitions this member owns (empty before the first join). */
  public List<TopicPartition> assignment() {
    return assignment;
  }

  /**
   * True when the member holds an assignment and every assigned partition has been read up to the
   * end offset its last fetch saw (an empty assignment is caught up).
   */
  public boolean caughtUp() {
    synchronized (lock) {
      if (!joined || lost) {
        return false;
      }
    }
    for (TopicPartition tp : assignment) {
      Long end = endOffsets.get(tp);
      Long position = positions.get(tp);
      if (end == null || position == null || position < end) {
        return false;
      }
    }
    return true;
  }

  public String memberId() {
    synchronized (lock) {
      return memberId;
    }
  }

  public int generation() {
    synchronized (lock) {
      return generation;
    }
  }

  /**
   * Commits the positions (when still a member), leaves the group and stops the heartbeat thread.
   * A failed commit is thrown after the member has left.
   */
  @Override
  public void close() {
    RuntimeException failure = null;
    String leaving = null;
    synchronized (lock) {
      if (closed) {
        return;
      }
    }
    boolean member;
    synchronized (lock) {
      member = joined && !lost;
    }
    if (member) {
      try {
        commit();
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    synchronized (lock) {
      closed = true;
      if (!memberId.isEmpty() && !lost) {
        leaving = memberId;
      }
      joined = false;
      lock.notifyAll();
    }
    if (leaving != null) {
      leave(leaving);
    }
    heartbeater.interrupt();
    try {
      heartbeater.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (failure != null) {
      throw failure;
    }
  }

  // --- membership

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("the consumer is closed");
    }
  }

  /** Handles what the heartbeat thread noticed, then joins when the member holds no assignment. */
  private void ensureMember() {
    boolean wasLost;
    boolean revoke;
    synchronized (lock) {
      ensureOpen();
      wasLost = lost;
      revoke = !lost && joined && rejoinRequested;
      if (wasLost) {
        joined = false;
        lost = false;
      }
    }
    if (wasLost) {
      List<TopicPartition> gone = dropAssignment();
      if (!gone.isEmpty()) {
        listener.onPartitionsLost(gone);
      }
    } else if (revoke) {
      // Still the owner: the listener may commit, with the generation that is ending.
      listener.onPartitionsRevoked(assignment);
      dropAssignment();
      synchronized (lock) {
        joined = false;
      }
    }
    boolean needJoin;
    synchronized (lock) {
      needJoin = !joined;
    }
    if (needJoin) {
      join();
      startPositions();
      listener.onPartitionsAssigned(assignment);
    }
  }

  private List<TopicPartition> dropAssignment() {
    List<TopicPartition> previous = assignment;
    assignment = List.of();
    positions.clear();
    endOffsets.clear();
    return previous;
  }

  private void join() {
    String id;
    synchronized (lock) {
      id = memberId;
      rejoinRequested = false;
    }
    long deadlineMs = settings.maxPollIntervalMs + JOIN_GRACE_MS;
    for (int attempt = 1; ; attempt++) {
      JoinGroupRequest request = JoinGroupRequest.newBuilder().setGroup(settings.group).setMemberId(id)
          .setClientId(settings.clientId).addAllTopics(settings.topics)
          .setSessionTimeoutMs(settings.sessionTimeoutMs).setRebalanceTimeoutMs(settings.maxPollIntervalMs).build();
      JoinGroupResponse response;
      try {
        response = groups.withDeadlineAfter(deadlineMs, TimeUnit.MILLISECONDS).joinGroup(request);
      } catch (StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        boolean retry = code == Status.Code.NOT_FOUND || code == Status.Code.ABORTED
            || code == Status.Code.DEADLINE_EXCEEDED;
        if (!retry || attempt >= JOIN_ATTEMPTS) {
          throw e;
        }
        if (code == Status.Code.NOT_FOUND) {
          id = ""; // removed meanwhile: join as a new member
        }
        LOG.log(System.Logger.Level.DEBUG, "JoinGroup of {0} failed ({1}); trying again", settings.group, describe(e));
        continue;
      }
      List<TopicPartition> assigned = new ArrayList<>();
      for (TopicPartitions tps : response.getAssignmentList()) {
        for (int p : tps.getPartitionsList()) {
          assigned.add(new TopicPartition(tps.getTopic(), p));
        }
      }
      assignment = Collections.unmodifiableList(assigned);
      synchronized (lock) {
        memberId = response.getMemberId();
        generation = response.getGeneration();
        heartbeatIntervalMs = response.getHeartbeatIntervalMs() > 0 ? response.getHeartbeatIntervalMs() : 3000;
        joined = true;
        lost = false;
        rejoinRequested = false;
        nextHeartbeatNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(heartbeatIntervalMs);
        lock.notifyAll();
      }
      return;
    }
  }

  /** Positions of a fresh assignment: the committed offsets, else auto.offset.reset. */
  private void startPositions() {
    if (assignment.isEmpty()) {
      return;
    }
    FetchCommittedOffsetsRequest.Builder request = FetchCommittedOffsetsRequest.newBuilder().setGroup(settings.group);
    byTopic(assignment).forEach((topic, ps) -> request.addPartitions(TopicPartitions.newBuilder().setTopic(topic)
        .addAllPartitions(ps)));
    List<CommittedOffset> committed = groups.withDeadlineAfter(CALL_DEADLINE_MS, TimeUnit.MILLISECONDS)
        .fetchCommittedOffsets(request.build()).getOffsetsList();
    for (CommittedOffset c : committed) {
      TopicPartition tp = new TopicPartition(c.getTopic(), c.getPartition());
      if (c.getErrorCode() != ErrorCode.ERROR_CODE_UNSPECIFIED) {
        throw new ConsumerException("cannot read the committed offset of " + tp + ": " + c.getErrorMessage() + " ("
            + c.getErrorCode() + ")");
      }
      if (c.hasOffset() && assignment.contains(tp)) {
        positions.put(tp, c.getOffset());
      }
    }
    List<TopicPartition> missing = new ArrayList<>();
    for (TopicPartition tp : assignment) {
      if (!positions.containsKey(tp)) {
        missing.add(tp);
      }
    }
    if (missing.isEmpty()) {
      return;
    }
    if (settings.autoOffsetReset == OffsetReset.NONE) {
      throw new ConsumerException("no committed offset for " + missing + " in group " + settings.group
          + " and auto.offset.reset is none");
    }
    Boundary boundary = settings.autoOffsetReset == OffsetReset.EARLIEST ? Boundary.BOUNDARY_EARLIEST
        : Boundary.BOUNDARY_LATEST;
    ListOffsetsRequest.Builder query = ListOffsetsRequest.newBuilder();
    for (TopicPartition tp : missing) {
      query.addQueries(OffsetQuery.newBuilder().setTopic(tp.topic()).setPartition(tp.partition())
          .setPosition(Position.newBuilder().setBoundary(boundary)));
    }
    List<OffsetAnswer> answers = fetches.withDeadlineAfter(CALL_DEADLINE_MS, TimeUnit.MILLISECONDS)
        .listOffsets(query.build()).getAnswersList();
    for (int i = 0; i < missing.size(); i++) {
      OffsetAnswer a = answers.get(i);
      if (a.getErrorCode() != ErrorCode.ERROR_CODE_UNSPECIFIED) {
        throw new ConsumerException("cannot find the " + settings.autoOffsetReset.name().toLowerCase() + " offset of "
            + missing.get(i) + ": " + a.getErrorMessage() + " (" + a.getErrorCode() + ")");
      }
      positions.put(missing.get(i), a.getOffset());
    }
  }

  private static Map<String, List<Integer>> byTopic(List<TopicPartition> tps) {
    Map<String, List<Integer>> m = new LinkedHashMap<>();
    for (TopicPartition tp : tps) {
      m.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
    }
    return m;
  }

  // --- fetching

  private List<ConsumedRecord> fetchOnce(int waitMs) {
    if (assignment.isEmpty()) {
      // Nothing to read: wait for the heartbeat thread to report a rebalance, or for the timeout.
      synchronized (lock) {
        if (waitMs > 0 && !rejoinRequested && !lost) {
          try {
            lock.wait(waitMs);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConsumerException("interrupted while polling", e);
          }
        }
      }
      return List.of();
    }
    int n = assignment.size();
    List<TopicPartition> order = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      order.add(assignment.get((rotation + i) % n)); // fairness: each partition goes first in turn
    }
    rotation = (rotation + 1) % n;
    FetchRequest.Builder request = FetchRequest.newBuilder().setMaxRecords(settings.maxPollRecords).setMaxWaitMs(waitMs);
    for (TopicPartition tp : order) {
      request.addPartitions(FetchPartition.newBuilder().setTopic(tp.topic()).setPartition(tp.partition())
          .setOffset(positions.get(tp)));
    }
    FetchResponse response = fetches.withDeadlineAfter(waitMs + CALL_DEADLINE_MS, TimeUnit.MILLISECONDS)
        .fetch(request.build());
    List<ConsumedRecord> records = new ArrayList<>();
    for (int i = 0; i < order.size() && i < response.getPartitionsCount(); i++) {
      TopicPartition tp = order.get(i);
      PartitionRecords pr = response.getPartitions(i);
      if (pr.getErrorCode() == ErrorCode.ERROR_CODE_OFFSET_OUT_OF_RANGE) {
        resetOutOfRange(tp, pr);
        continue;
      }
      if (pr.getErrorCode() != ErrorCode.ERROR_CODE_UNSPECIFIED) {
        throw new ConsumerException("fetch of " + tp + " failed: " + pr.getErrorMessage() + " (" + pr.getErrorCode() + ")");
      }
      for (Record r : pr.getRecordsList()) {
        records.add(new ConsumedRecord(tp.topic(), tp.partition(), r));
      }
      positions.put(tp, pr.getNextOffset());
      endOffsets.put(tp, pr.getEndOffset());
    }
    return records;
  }

  /** Retention passed the position (or it lies beyond the end): start over per auto.offset.reset. */
  private void resetOutOfRange(TopicPartition tp, PartitionRecords pr) {
    long to = switch (settings.autoOffsetReset) {
      case EARLIEST -> pr.getLogStartOffset();
      case LATEST -> pr.getEndOffset();
      case NONE -> throw new ConsumerException("offset " + positions.get(tp) + " of " + tp + " is out of range ("
          + pr.getErrorMessage() + ") and auto.offset.reset is none");
    };
    LOG.log(System.Logger.Level.WARNING, "offset {0} of {1} is out of range [{2}, {3}]; resetting to {4} ({5})",
        positions.get(tp), tp, pr.getLogStartOffset(), pr.getEndOffset(), to,
        settings.autoOffsetReset.name().toLowerCase());
    positions.put(tp, to);
    endOffsets.put(tp, pr.getEndOffset());
  }

  // --- the heartbeat thread

  private void heartbeatLoop() {
    while (true) {
      String member;
      int gen;
      String leaveAs = null;
      synchronized (lock) {
        try {
          while (true) {
            if (closed) {
              return;
            }
            if (!joined || lost) {
              lock.wait(); // join() or close() wakes us
              continue;
            }
            long now = System.nanoTime();
            long pollDeadline = lastPollNanos + TimeUnit.MILLISECONDS.toNanos(settings.maxPollIntervalMs);
            if (!inPoll && now - pollDeadline > 0) {
              // The application stopped polling: give the partitions to the others (Kafka's
              // max.poll.interval.ms). The next poll joins as a new member.
              leaveAs = memberId;
              memberId = "";
              lost = true;
              lock.notifyAll();
              break;
            }
            long waitNanos = nextHeartbeatNanos - now;
            if (!inPoll) {
              waitNanos = Math.min(waitNanos, pollDeadline - now + 1_000_000);
            }
            if (waitNanos > 0) {
              TimeUnit.NANOSECONDS.timedWait(lock, waitNanos);
              continue;
            }
            break;
          }
        } catch (InterruptedException e) {
          if (closed) {
            return;
          }
          continue;
        }
        member = memberId;
        gen = generation;
        nextHeartbeatNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(heartbeatIntervalMs);
      }
      if (leaveAs != null) {
        LOG.log(System.Logger.Level.WARNING, "left group {0}: poll was not called within max.poll.interval ({1} ms); "
            + "the next poll joins again", settings.group, settings.maxPollIntervalMs);
        leave(leaveAs);
        continue;
      }
      heartbeat(member, gen);
    }
  }

  private void heartbeat(String member, int gen) {
    try {
      HeartbeatResponse r = groups.withDeadlineAfter(Math.max(heartbeatIntervalMs, 5000), TimeUnit.MILLISECONDS)
          .heartbeat(HeartbeatRequest.newBuilder().setGroup(settings.group).setMemberId(member).setGeneration(gen)
              .build());
      if (r.getRejoin()) {
        synchronized (lock) {
          if (current(member, gen)) {
            rejoinRequested = true;
            lock.notifyAll();
          }
        }
      }
    } catch (StatusRuntimeException e) {
      if (!fencedOrRemoved(e, member, gen)) {
        // Unreachable or stopping broker: try again at the next interval; a session that runs out
        // shows up as UNKNOWN_MEMBER_ID then.
        LOG.log(System.Logger.Level.DEBUG, "heartbeat to group {0} failed: {1}", settings.group, describe(e));
      }
    }
  }

  /**
   * Marks the member lost when the broker says it was removed (NOT_FOUND: rejoin with a new id) or
   * fenced (ABORTED: rejoin with the same id), as long as the answer is about the current
   * membership. Answers whether the failure was one of those.
   */
  private boolean fencedOrRemoved(StatusRuntimeException e, String member, int gen) {
    Status.Code code = e.getStatus().getCode();
    if (code != Status.Code.NOT_FOUND && code != Status.Code.ABORTED) {
      return false;
    }
    synchronized (lock) {
      if (current(member, gen)) {
        lost = true;
        if (code == Status.Code.NOT_FOUND) {
          memberId = "";
        }
        lock.notifyAll();
      }
    }
    return true;
  }

  /** Holding the lock: the answer concerns the membership the member has now. */
  private boolean current(String member, int gen) {
    return joined && !lost && !closed && member.equals(memberId) && gen == generation;
  }

  private void leave(String member) {
    try {
      groups.withDeadlineAfter(5, TimeUnit.SECONDS)
          .leaveGroup(LeaveGroupRequest.newBuilder().setGroup(settings.group).setMemberId(member).build());
    } catch (StatusRuntimeException e) {
      // Already removed, or the broker is gone: the session timeout removes the member anyway.
      LOG.log(System.Logger.Level.DEBUG, "LeaveGroup of {0} failed: {1}", settings.group, describe(e));
    }
  }

  /** The status code, the ErrorInfo reason when there is one, and the description. */
  static String describe(StatusRuntimeException e) {
    String reason = null;
    com.google.rpc.Status details = StatusProto.fromThrowable(e);
    if (details != null) {
      for (com.google.protobuf.Any any : details.getDetailsList()) {
        if (any.is(ErrorInfo.class)) {
          try {
            reason = any.unpack(ErrorInfo.class).getReason();
          } catch (com.google.protobuf.InvalidProtocolBufferException ignored) {
            // the code says enough
          }
        }
      }
    }
    String description = e.getStatus().getDescription();
    return (description == null ? "" : description + " ") + "(" + (reason == null ? e.getStatus().getCode() : reason)
        + ")";
  }
}
