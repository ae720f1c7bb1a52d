package io.brook.broker.it.crash;

import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.CommitOffsetsResponse;
import io.brook.protocol.v1.CommitResult;
import io.brook.protocol.v1.CommittedOffset;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.HeartbeatRequest;
import io.brook.protocol.v1.JoinGroupRequest;
import io.brook.protocol.v1.JoinGroupResponse;
import io.brook.protocol.v1.OffsetCommit;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.Record;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.TimeUnit;

/**
 * The one member of an offset-mode group: joins, reads every partition from the committed offsets and
 * commits as it goes. For each partition it keeps the last commit the broker answered and the highest
 * it ever sent: after a restart the committed offset must lie between the two.
 */
final class OffsetConsumer extends Worker {
  private final String group;
  private final String topic;
  private final int partitions;
  private final Ledger ledger;
  private final CrashStats stats;
  private final long[] position;
  private final long[] lastAnswered;
  private final long[] highestSent;
  private String memberId;
  private int generation;
  private long lastHeartbeat;

  OffsetConsumer(String group, String topic, int partitions, Ledger ledger, CrashStats stats, BrokerLink link,
      Violations violations) {
    super("offset-consumer", link, violations);
    this.group = group;
    this.topic = topic;
    this.partitions = partitions;
    this.ledger = ledger;
    this.stats = stats;
    this.position = new long[partitions];
    this.lastAnswered = new long[partitions];
    this.highestSent = new long[partitions];
    java.util.Arrays.fill(lastAnswered, -1);
    java.util.Arrays.fill(highestSent, -1);
  }

  @Override
  void work() throws InterruptedException {
    while (true) {
      ManagedChannel ch = link.channel();
      if (ch == null) {
        return;
      }
      try {
        if (memberId == null) {
          join(ch);
        }
        boolean caughtUp = poll(ch);
        commit(ch);
        heartbeat(ch);
        succeeded();
        if (caughtUp && draining()) {
          return;
        }
        Thread.sleep(caughtUp ? 20 : 2);
      } catch (StatusRuntimeException e) {
        if (is(e, Status.Code.NOT_FOUND) || is(e, Status.Code.ABORTED)) {
          memberId = null; // the broker restarted (members are not persisted) or a rebalance fenced us
        }
        failed(e);
      }
    }
  }

  private GroupServiceGrpc.GroupServiceBlockingStub groups(ManagedChannel ch) {
    return GroupServiceGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private void join(ManagedChannel ch) {
    JoinGroupResponse r = groups(ch).joinGroup(JoinGroupRequest.newBuilder().setGroup(group).setClientId(name)
        .addTopics(topic).setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(5_000).build());
    memberId = r.getMemberId();
    generation = r.getGeneration();
    java.util.Arrays.fill(position, 0);
    for (CommittedOffset c : groups(ch).fetchCommittedOffsets(FetchCommittedOffsetsRequest.newBuilder()
        .setGroup(group).build()).getOffsetsList()) {
      if (c.getTopic().equals(topic) && c.hasOffset()) {
        position[c.getPartition()] = c.getOffset(); // like a Kafka consumer: on from the committed offset
      }
    }
    lastHeartbeat = System.currentTimeMillis();
  }

  /** Reads a little from each partition; true when every partition was at its end. */
  private boolean poll(ManagedChannel ch) {
    FetchRequest.Builder req = FetchRequest.newBuilder().setMaxRecords(500).setMaxBytes(1 << 20);
    for (int p = 0; p < partitions; p++) {
      req.addPartitions(FetchPartition.newBuilder().setTopic(topic).setPartition(p).setOffset(position[p]));
    }
    boolean caughtUp = true;
    for (PartitionRecords pr : FetchServiceGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS)
        .fetch(req.build()).getPartitionsList()) {
      int p = pr.getPartition();
      if (pr.getErrorCodeValue() != 0) {
        violations.add(name + ": fetch of " + p + " at " + position[p] + " failed: " + pr.getErrorCode() + " "
            + pr.getErrorMessage());
        continue;
      }
      for (Record r : pr.getRecordsList()) {
        if (r.getOffset() != position[p]) {
          violations.add(name + ": partition " + p + " returned offset " + r.getOffset() + " where "
              + position[p] + " was next");
        }
        position[p] = r.getOffset() + 1;
      }
      caughtUp &= pr.getRecordsCount() == 0 && position[p] >= ledger.answeredEnd(p);
    }
    return caughtUp;
  }

  private void commit(ManagedChannel ch) {
    CommitOffsetsRequest.Builder req = CommitOffsetsRequest.newBuilder().setGroup(group).setMemberId(memberId)
        .setGeneration(generation);
    long[] sending = position.clone();
    synchronized (this) {
      for (int p = 0; p < partitions; p++) {
        highestSent[p] = Math.max(highestSent[p], sending[p]);
        req.addOffsets(OffsetCommit.newBuilder().setTopic(topic).setPartition(p).setOffset(sending[p]));
      }
    }
    CommitOffsetsResponse r = groups(ch).commitOffsets(req.build());
    synchronized (this) {
      for (CommitResult c : r.getResultsList()) {
        if (c.getErrorCode() != ErrorCode.ERROR_CODE_UNSPECIFIED) {
          violations.add(name + ": commit of " + c.getPartition() + " at " + sending[c.getPartition()] + " failed: "
              + c.getErrorCode() + " " + c.getErrorMessage());
          continue;
        }
        lastAnswered[c.getPartition()] = sending[c.getPartition()];
        stats.commitsAnswered.incrementAndGet();
      }
    }
  }

  private void heartbeat(ManagedChannel ch) {
    if (System.currentTimeMillis() - lastHeartbeat < 1000) {
      return;
    }
    lastHeartbeat = System.currentTimeMillis();
    if (groups(ch).heartbeat(HeartbeatRequest.newBuilder().setGroup(group).setMemberId(memberId)
        .setGeneration(generation).build()).getRejoin()) {
      memberId = null;
    }
  }

  /** The last commit the broker answered for the partition, -1 if none. */
  synchronized long lastAnswered(int partition) {
    return lastAnswered[partition];
  }

  /** The highest offset ever sent in a commit for the partition, -1 if none. */
  synchronized long highestSent(int partition) {
    return highestSent[partition];
  }
}
