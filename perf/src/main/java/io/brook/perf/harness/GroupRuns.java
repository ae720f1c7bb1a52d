package io.brook.perf.harness;

import io.brook.perf.harness.SystemClient.GroupMember;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The consumer-group workloads (issue 26), Kafka clients only: members of one group reading a prefilled
 * topic, Kafka's ConsumerPerformance, and the time a third member's join takes to rebalance the group.
 */
final class GroupRuns {
  private GroupRuns() {}

  /**
   * The workload's consumers, members of one new group, subscribe to a prefilled topic together and read
   * it. Timed from the first record received to the last one not seen before, and also from the members'
   * creation (their joins included: a broker that hands all partitions to the first member and moves
   * some later starts its records early, one that waits for every member starts them late, and only
   * this second figure compares the two); each (partition, offset) must be seen, a record read again (a
   * member read it before a rebalance moved its partition and did not get to commit) is counted.
   */
  static void consume(Runner runner, Workload w, SystemClient c, Run run) throws Exception {
    runner.onFreshTopic(c, w, topic -> {
      if (!Runner.prefilled(c, topic, w, run)) {
        return;
      }
      String group = topic + "-g";
      BitSet[] seen = Runner.bitsets(w.partitions());
      AtomicLong distinct = new AtomicLong();
      AtomicLong again = new AtomicLong();
      AtomicLong first = new AtomicLong();
      AtomicLong last = new AtomicLong();
      AtomicReference<Throwable> error = new AtomicReference<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(w.timeoutSeconds());
      double cpu = c.server().cpuSeconds();
      long start = System.nanoTime();
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < w.consumers(); i++) {
        Thread t = new Thread(() -> {
          try (GroupMember m = c.groupMember(group, topic, w.settings(), partitions -> {})) {
            while (distinct.get() < w.records() && System.nanoTime() < deadline && error.get() == null) {
              m.poll(Duration.ofMillis(100), (p, offset, value, attempt) -> {
                first.compareAndSet(0, System.nanoTime());
                boolean fresh;
                synchronized (seen[p]) {
                  fresh = !seen[p].get((int) offset);
                  seen[p].set((int) offset);
                }
                if (!fresh) {
                  again.incrementAndGet();
                } else if (distinct.incrementAndGet() == w.records()) {
                  last.set(System.nanoTime());
                }
              });
            }
          } catch (Throwable e) {
            error.compareAndSet(null, e);
          }
        }, "perf-group-" + i);
        threads.add(t);
        t.start();
      }
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(w.timeoutSeconds() + 60));
      }
      run.values.put("broker_cpu_s", c.server().cpuSeconds() - cpu);
      if (error.get() != null) {
        run.fail("member: " + error.get());
        return;
      }
      if (distinct.get() != w.records()) {
        run.fail("read " + distinct.get() + " distinct records of " + w.records());
        return;
      }
      Runner.putThroughput(w, run, last.get() - first.get());
      run.values.put("joined_records_per_s", w.records() / ((last.get() - start) / 1e9));
      Runner.putCpuPerRecord(w, run);
      run.values.put("read_again", (double) again.get());
    });
  }

  /**
   * Kafka's ConsumerPerformance (one member of a new group, subscribed) reads a prefilled topic: its own
   * figures, records/s over its whole run and over its fetching alone, and its join (rebalance) time.
   */
  static void consumerPerf(Runner runner, Workload w, SystemClient c, Run run) throws Exception {
    runner.onFreshTopic(c, w, topic -> {
      if (!Runner.prefilled(c, topic, w, run)) {
        return;
      }
      List<String> command = ConsumerPerformanceTool.command(runner.repo(), c.server().kafkaBootstrap(), topic,
          topic + "-g", w.records(), w.settings().extra());
      double cpu = c.server().cpuSeconds();
      ConsumerPerformanceTool.Summary s = ConsumerPerformanceTool.run(command,
          c.server().dir.resolveSibling(topic + ".consumer-perf.log"), w.timeoutSeconds());
      run.values.put("broker_cpu_s", c.server().cpuSeconds() - cpu);
      if (s.records() != w.records()) {
        run.fail("ConsumerPerformance: read " + s.records() + " of " + w.records() + " records");
        return;
      }
      run.values.put("records_per_s", s.recordsPerSecond());
      run.values.put("fetch_records_per_s", s.fetchRecordsPerSecond());
      run.values.put("mb_per_s", s.recordsPerSecond() * w.recordSize() / 1e6);
      run.values.put("rebalance_ms", (double) s.rebalanceMs());
      Runner.putCpuPerRecord(w, run);
    });
  }

  /**
   * Rebalance time, {@code w.seconds()} rounds on one topic, each with a new group: two members join and
   * share the partitions, then a third one is made and subscribes; timed from then until the three hold
   * the partitions between them (each some, none twice, all of them), as their rebalance listeners say.
   */
  static void rebalance(Runner runner, Workload w, SystemClient c, Run run) throws Exception {
    runner.onFreshTopic(c, w, topic -> {
      List<Double> ms = new ArrayList<>();
      for (int round = 0; round < w.seconds(); round++) {
        ms.add(rebalanceOnce(w, c, topic, topic + "-g" + round) / 1e6);
      }
      ms.sort(Double::compare);
      run.values.put("rebalance_ms", ms.get(ms.size() / 2));
      run.values.put("rebalance_max_ms", ms.get(ms.size() - 1));
    });
  }

  private static long rebalanceOnce(Workload w, SystemClient c, String topic, String group) throws Exception {
    int members = w.consumers();
    Assignments assignments = new Assignments(w.partitions());
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> error = new AtomicReference<>();
    long[] made = new long[members];
    List<Thread> threads = new ArrayList<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(w.timeoutSeconds());
    try {
      for (int i = 0; i < members; i++) {
        if (i == members - 1) {
          assignments.await(members - 1, deadline, error); // the others share the partitions first
        }
        int member = i;
        Thread t = new Thread(() -> {
          made[member] = System.nanoTime();
          try (GroupMember m = c.groupMember(group, topic, w.settings(), p -> assignments.set(member, p))) {
            while (!stop.get()) {
              m.poll(Duration.ofMillis(100), (p, offset, value, attempt) -> {});
            }
          } catch (Throwable e) {
            error.compareAndSet(null, e);
          }
        }, "perf-rebalance-" + i);
        threads.add(t);
        t.start();
      }
      long done = assignments.await(members, deadline, error);
      return done - made[members - 1];
    } finally {
      stop.set(true);
      for (Thread t : threads) {
        t.join(60_000);
      }
    }
  }

  /** Each member's partitions as its rebalance listener last said, and when they first covered the topic. */
  static final class Assignments {
    private final int partitions;
    private final Map<Integer, Set<Integer>> byMember = new HashMap<>();
    private int coveredBy;
    private long coveredAt;

    Assignments(int partitions) {
      this.partitions = partitions;
    }

    synchronized void set(int member, Set<Integer> owned) {
      byMember.put(member, Set.copyOf(owned));
      if (covered()) {
        if (coveredBy != byMember.size()) {
          coveredBy = byMember.size();
          coveredAt = System.nanoTime();
        }
      } else {
        coveredBy = 0;
      }
      notifyAll();
    }

    /** Every member holds some, no partition is held twice, every partition is held. */
    private boolean covered() {
      Set<Integer> all = new HashSet<>();
      for (Set<Integer> owned : byMember.values()) {
        if (owned.isEmpty()) {
          return false;
        }
        for (int p : owned) {
          if (!all.add(p)) {
            return false;
          }
        }
      }
      return all.size() == partitions;
    }

    /** When {@code members} members first covered the topic; fails at the deadline or a member's error. */
    synchronized long await(int members, long deadline, AtomicReference<Throwable> error) throws Exception {
      while (coveredBy != members) {
        if (error.get() != null) {
          throw new IllegalStateException("member: " + error.get(), error.get());
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new TimeoutException(members + " members did not share the " + partitions + " partitions in time: "
              + byMember);
        }
        TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
      }
      return coveredAt;
    }
  }
}
