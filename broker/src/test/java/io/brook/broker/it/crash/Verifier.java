package io.brook.broker.it.crash;

import io.brook.protocol.v1.CommittedOffset;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.GroupPartition;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.Record;
import io.grpc.ManagedChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The checks after each restart, while every worker is parked: the log against the ledger (every
 * answered record exactly once at its answered offset, offsets contiguous, nothing unknown, values
 * intact), the offline dump against the log, and the groups' state against what their members were
 * answered.
 */
final class Verifier {
  private final String topic;
  private final int partitions;
  private final long seed;
  private final Ledger ledger;
  private final CrashStats stats;
  private final Violations violations;
  long lost;
  long duplicated;

  Verifier(String topic, int partitions, long seed, Ledger ledger, CrashStats stats, Violations violations) {
    this.topic = topic;
    this.partitions = partitions;
    this.seed = seed;
    this.ledger = ledger;
    this.stats = stats;
    this.violations = violations;
  }

  /** Checks the log; returns each partition's end offset. */
  long[] log(ManagedChannel ch, DumpRun.Result dump, Path topicDir) {
    long[] ends = new long[partitions];
    Set<String> seen = new HashSet<>();
    for (int p = 0; p < partitions; p++) {
      List<Record> all = readAll(ch, p);
      ends[p] = all.size();
      for (int i = 0; i < all.size(); i++) {
        Record r = all.get(i);
        String key = r.getKey().toStringUtf8();
        if (r.getOffset() != i) {
          violations.add(topic + "/" + p + ": offset " + r.getOffset() + " where " + i + " was next (a gap or "
              + "overlap)");
          break;
        }
        if (!seen.add(key)) {
          duplicated++;
          violations.add(topic + "/" + p + ": " + key + " at offset " + i + " is a duplicate");
        }
        Long at = ledger.answeredAt(key);
        if (at != null && at != Ledger.location(p, i)) {
          violations.add(topic + "/" + p + ": " + key + " found at offset " + i + ", answered at "
              + Ledger.describe(at));
        } else if (at == null && !ledger.inFlight(key)) {
          violations.add(topic + "/" + p + ": " + key + " at offset " + i + " was never sent");
        }
        if (!Arrays.equals(r.getValue().toByteArray(), Payloads.value(seed, key))) {
          violations.add(topic + "/" + p + ": the value of " + key + " at offset " + i + " is not what was sent");
        }
      }
      if (ends[p] < ledger.answeredEnd(p)) {
        violations.add(topic + "/" + p + ": the log ends at " + ends[p] + ", below the answered end "
            + ledger.answeredEnd(p));
      }
      stats.recordsChecked.addAndGet(all.size());
      if (dump != null) {
        compare(dump.partitions().get(topicDir.resolve(Integer.toString(p))), p, all);
      }
    }
    for (Map.Entry<String, Long> e : ledger.answeredCopy().entrySet()) {
      if (!seen.contains(e.getKey())) {
        lost++;
        violations.add(e.getKey() + " answered at " + Ledger.describe(e.getValue()) + " is missing from the log");
      }
    }
    return ends;
  }

  /** The dump taken while the broker was down must show exactly what fetch returns after the restart. */
  private void compare(DumpRun.PartitionDump d, int p, List<Record> fetched) {
    if (d == null) {
      violations.add(topic + "/" + p + ": no dump output");
      return;
    }
    if (d.corrupt()) {
      violations.add(topic + "/" + p + ": brook dump reports corruption: " + d.summary());
    }
    if ("torn".equals(d.tail())) {
      stats.tornTails.incrementAndGet();
    } else if ("leftover".equals(d.tail())) {
      stats.leftoverTails.incrementAndGet();
    }
    if (d.offsets().size() != fetched.size() || d.summary().get("records").getAsLong() != fetched.size()) {
      violations.add(topic + "/" + p + ": brook dump shows " + d.offsets().size() + " records, fetch "
          + fetched.size());
      return;
    }
    for (int i = 0; i < fetched.size(); i++) {
      if (d.offsets().get(i) != fetched.get(i).getOffset()
          || !fetched.get(i).getKey().toStringUtf8().equals(d.keys().get(i))) {
        violations.add(topic + "/" + p + ": brook dump shows " + d.keys().get(i) + " at " + d.offsets().get(i)
            + ", fetch " + fetched.get(i).getKey().toStringUtf8() + " at " + fetched.get(i).getOffset());
        return;
      }
    }
    stats.dumpRecordsCompared.addAndGet(fetched.size());
  }

  /** Journals are partition logs too: the dump must find them sound. */
  void journals(DumpRun.Result dump) {
    dump.partitions().values().stream().filter(d -> d.dir().getFileName().toString().startsWith("journal-"))
        .filter(DumpRun.PartitionDump::corrupt)
        .forEach(d -> violations.add("group journal " + d.dir() + ": brook dump reports corruption: " + d.summary()));
  }

  /** The offset group's committed offsets lie between the last answered commit and the highest sent. */
  void offsetGroup(ManagedChannel ch, String group, OffsetConsumer member) {
    long[] committed = new long[partitions];
    Arrays.fill(committed, -1);
    for (CommittedOffset c : GroupServiceGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS)
        .fetchCommittedOffsets(FetchCommittedOffsetsRequest.newBuilder().setGroup(group).build()).getOffsetsList()) {
      if (c.getTopic().equals(topic) && c.hasOffset()) {
        committed[c.getPartition()] = c.getOffset();
      }
    }
    for (int p = 0; p < partitions; p++) {
      long answered = member.lastAnswered(p);
      long sent = member.highestSent(p);
      stats.commitChecks.incrementAndGet();
      if (committed[p] < answered) {
        violations.add("group " + group + " " + topic + "/" + p + ": committed " + committed[p]
            + " is below the last answered commit " + answered);
      } else if (committed[p] > sent) {
        violations.add("group " + group + " " + topic + "/" + p + ": committed " + committed[p]
            + " is above every commit sent (" + sent + ")");
      }
    }
  }

  /** The ack group's lowest unsettled offset is not below the first record whose ack was not answered. */
  long[] ackGroup(ManagedChannel ch, String group, AckConsumer member) {
    long[] committed = new long[partitions];
    Arrays.fill(committed, -1);
    for (GroupPartition gp : GroupServiceGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS)
        .describeGroup(DescribeGroupRequest.newBuilder().setGroup(group).build()).getGroup().getPartitionsList()) {
      if (gp.getTopic().equals(topic) && gp.hasCommittedOffset()) {
        committed[gp.getPartition()] = gp.getCommittedOffset();
      }
    }
    for (int p = 0; p < partitions; p++) {
      long firstNotAcked = member.firstNotAcked(p);
      stats.ackChecks.incrementAndGet();
      if (firstNotAcked > 0 && committed[p] < firstNotAcked) {
        violations.add("group " + group + " " + topic + "/" + p + ": lowest unsettled offset " + committed[p]
            + " is below " + firstNotAcked + ", though every ack below it was answered");
      }
    }
    return committed;
  }

  List<Record> readAll(ManagedChannel ch, int partition) {
    List<Record> all = new ArrayList<>();
    long next = 0;
    while (true) {
      PartitionRecords pr = FetchServiceGrpc.newBlockingStub(ch).withDeadlineAfter(60, TimeUnit.SECONDS)
          .fetch(FetchRequest.newBuilder().addPartitions(FetchPartition.newBuilder().setTopic(topic)
              .setPartition(partition).setOffset(next)).setMaxRecords(20_000).setMaxBytes(3 << 20).build())
          .getPartitions(0);
      if (pr.getErrorCodeValue() != 0) {
        violations.add(topic + "/" + partition + ": fetch at " + next + " failed: " + pr.getErrorCode() + " "
            + pr.getErrorMessage());
        return all;
      }
      if (pr.getRecordsCount() == 0) {
        return all;
      }
      all.addAll(pr.getRecordsList());
      next = pr.getNextOffset();
    }
  }
}
