package io.brook.perf.harness;

import io.brook.perf.harness.SystemClient.AckReader;
import io.brook.perf.harness.SystemClient.Consumer;
import io.brook.perf.harness.SystemClient.Producer;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The workload loops, written once against {@link SystemClient}: each run checks what it measured
 * (every record answered, read or acked exactly as many as were sent) and fails with a note when not.
 */
final class Runner {
  private final Systems systems;
  private long topicSerial;

  Runner(Systems systems) {
    this.systems = systems;
  }

  Run run(Workload w, String system, int repeat) {
    Run run = new Run(system, repeat);
    CpuSteal before = CpuSteal.now();
    long t0 = System.nanoTime();
    try {
      switch (w.kind()) {
        case PRODUCE -> produce(w, systems.client(system), run);
        case CONSUME -> consume(w, systems.client(system), run);
        case END_TO_END -> endToEnd(w, systems.client(system), run);
        case ACK -> ack(w, systems.client(system), run);
        case SYNCED -> synced(w, systems.client(system), run);
        case START_EMPTY -> startEmpty(w, system, run);
        case START_FULL -> startFull(w, system, run);
        case PARTITIONS -> partitions(w, system, run);
        case PRODUCER_PERF -> producerPerf(w, systems.client(system), run);
        case GROUP_CONSUME -> GroupRuns.consume(this, w, systems.client(system), run);
        case CONSUMER_PERF -> GroupRuns.consumerPerf(this, w, systems.client(system), run);
        case REBALANCE -> GroupRuns.rebalance(this, w, systems.client(system), run);
        case FORWARD -> ForwardRuns.run(this, systems, w, system, run);
      }
    } catch (Exception e) {
      run.fail(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
    run.seconds = (System.nanoTime() - t0) / 1e9;
    run.stealPercent = CpuSteal.now().percentSince(before);
    return run;
  }

  /** The Brook checkout (perf/kafka.sh runs Kafka's tools). */
  java.nio.file.Path repo() {
    return systems.repo();
  }

  private String topic(Workload w) {
    return "perf-" + w.name() + "-" + Long.toString(System.currentTimeMillis(), 36) + "-" + (++topicSerial);
  }

  private static byte[] payload(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  /** Sends {@code records} records over {@code producers} producers as fast as they take them. */
  private static Sent send(SystemClient c, String topic, Workload w, long records, int producers, Latency latency)
      throws InterruptedException {
    byte[] value = payload(w.recordSize(), 42);
    CountDownLatch answered = new CountDownLatch((int) records);
    AtomicLong failed = new AtomicLong();
    AtomicReference<Throwable> firstError = new AtomicReference<>();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    List<Producer> opened = new ArrayList<>();
    for (int i = 0; i < producers; i++) {
      long mine = records / producers + (i < records % producers ? 1 : 0);
      Producer p = c.producer(topic, w.settings());
      opened.add(p);
      Thread t = new Thread(() -> {
        try {
          go.await();
          for (long n = 0; n < mine; n++) {
            long sent = System.nanoTime();
            p.send(value, e -> {
              if (e != null) {
                failed.incrementAndGet();
                firstError.compareAndSet(null, e);
              } else if (latency != null) {
                latency.recordNanos(System.nanoTime() - sent);
              }
              answered.countDown();
            });
          }
          p.flush();
        } catch (Throwable e) {
          firstError.compareAndSet(null, e);
          while (answered.getCount() > 0) { // nothing more is coming from this producer: let the wait end
            answered.countDown();
            failed.incrementAndGet();
          }
        }
      }, "perf-producer-" + i);
      threads.add(t);
      t.start();
    }
    long start = System.nanoTime();
    go.countDown();
    boolean done = answered.await(w.timeoutSeconds(), TimeUnit.SECONDS);
    long nanos = System.nanoTime() - start;
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(30));
    }
    opened.forEach(Producer::close);
    return new Sent(records - answered.getCount() - failed.get(), failed.get(), nanos, done, firstError.get());
  }

  private record Sent(long ok, long failed, long nanos, boolean done, Throwable error) {
    String problem(long expected) {
      if (!done) {
        return "timed out: " + ok + " of " + expected + " answered";
      }
      if (failed > 0 || ok != expected) {
        return failed + " of " + expected + " sends failed" + (error != null ? ", first: " + error : "");
      }
      return null;
    }
  }

  private void produce(Workload w, SystemClient c, Run run) throws Exception {
    onFreshTopic(c, w, topic -> {
      Latency latency = new Latency();
      double cpu = c.server().cpuSeconds();
      Sent s = send(c, topic, w, w.records(), w.producers(), latency);
      run.values.put("broker_cpu_s", c.server().cpuSeconds() - cpu);
      String problem = s.problem(w.records());
      if (problem != null) {
        run.fail(problem);
        return;
      }
      putThroughput(w, run, s.nanos);
      putCpuPerRecord(w, run);
      latency.putInto(run.values);
      run.latencyCurve = latency.curve();
    });
  }

  private void consume(Workload w, SystemClient c, Run run) throws Exception {
    onFreshTopic(c, w, topic -> {
      if (!prefilled(c, topic, w, run)) {
        return;
      }
      double cpu = c.server().cpuSeconds();
      long[] count = new long[1];
      BitSet[] seen = bitsets(w.partitions());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(w.timeoutSeconds());
      long start;
      long end;
      try (Consumer consumer = c.consumer(topic, w.partitions(), w.settings())) {
        start = System.nanoTime();
        while (count[0] < w.records() && System.nanoTime() < deadline) {
          consumer.poll(Duration.ofMillis(100), (p, offset, value, attempt) -> {
            count[0]++;
            seen[p].set((int) offset);
          });
        }
        end = System.nanoTime();
      }
      run.values.put("broker_cpu_s", c.server().cpuSeconds() - cpu);
      long distinct = 0;
      for (BitSet b : seen) {
        distinct += b.cardinality();
      }
      long duplicates = count[0] - distinct;
      if (count[0] < w.records() || duplicates != 0) {
        run.fail("read " + count[0] + " records (" + distinct + " distinct) of " + w.records());
        return;
      }
      putThroughput(w, run, end - start);
      putCpuPerRecord(w, run);
    });
  }

  /**
   * Kafka's ProducerPerformance on a fresh topic of the workload's: its own figures (records/s and
   * latency percentiles, whole milliseconds), the broker's CPU over the tool's whole process.
   */
  private void producerPerf(Workload w, SystemClient c, Run run) throws Exception {
    onFreshTopic(c, w, topic -> {
      List<String> command = ProducerPerformanceTool.command(systems.repo(), c.server().kafkaBootstrap(), topic,
          w.records(), w.recordSize());
      double cpu = c.server().cpuSeconds();
      ProducerPerformanceTool.Summary s = ProducerPerformanceTool.run(command,
          c.server().dir.resolveSibling(topic + ".producer-perf.log"), w.timeoutSeconds());
      run.values.put("broker_cpu_s", c.server().cpuSeconds() - cpu);
      if (s.records() != w.records()) {
        run.fail("ProducerPerformance: " + s.records() + " of " + w.records() + " records acknowledged");
        return;
      }
      run.values.put("records_per_s", s.recordsPerSecond());
      run.values.put("mb_per_s", s.recordsPerSecond() * w.recordSize() / 1e6);
      run.values.put("p50_ms", s.p50Ms());
      run.values.put("p99_ms", s.p99Ms());
      run.values.put("p999_ms", s.p999Ms());
      run.values.put("max_ms", s.maxMs());
      putCpuPerRecord(w, run);
    });
  }

  /** The broker's CPU per record of the workload, in microseconds. */
  static void putCpuPerRecord(Workload w, Run run) {
    Double cpu = run.values.get("broker_cpu_s");
    if (cpu != null && w.records() > 0) {
      run.values.put("broker_cpu_us_per_record", cpu * 1e6 / w.records());
    }
  }

  /** What a workload does with a topic of its own. */
  interface OnTopic {
    void run(String topic) throws Exception;
  }

  /** A new topic of the workload's partitions for {@code body}, deleted after it (runs must not fill the disk). */
  void onFreshTopic(SystemClient c, Workload w, OnTopic body) throws Exception {
    String topic = topic(w);
    c.createTopic(topic, w.partitions());
    try {
      body.run(topic);
    } finally {
      c.deleteTopic(topic);
    }
  }

  /** Fills the topic a read workload drains; false (and the run failed) unless every record was answered. */
  static boolean prefilled(SystemClient c, String topic, Workload w, Run run) throws InterruptedException {
    String problem = send(c, topic, w, w.records(), 1, null).problem(w.records());
    if (problem != null) {
      run.fail("prefill: " + problem);
      return false;
    }
    return true;
  }

  /** The workload's records (and their value bytes) over {@code nanos}. */
  static void putThroughput(Workload w, Run run, long nanos) {
    double seconds = nanos / 1e9;
    run.values.put("records_per_s", w.records() / seconds);
    run.values.put("mb_per_s", w.records() * (double) w.recordSize() / seconds / 1e6);
  }

  static BitSet[] bitsets(int n) {
    BitSet[] b = new BitSet[n];
    for (int i = 0; i < n; i++) {
      b[i] = new BitSet();
    }
    return b;
  }

  /**
   * One producer paced at the workload's rate, one consumer. Each value carries the time its record
   * was scheduled to be sent (not when it was: a stalled producer must not hide latency, the
   * coordinated-omission trap) and its sequence; the consumer records now − scheduled. The first
   * tenth of the records is the run's own warm-up and not recorded.
   */
  private void endToEnd(Workload w, SystemClient c, Run run) throws Exception {
    onFreshTopic(c, w, topic -> {
      Latency latency = new Latency();
      long records = w.records();
      long skip = records / 10;
      AtomicLong received = new AtomicLong();
      AtomicReference<Throwable> consumerError = new AtomicReference<>();
      CountDownLatch consumerReady = new CountDownLatch(1);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(w.timeoutSeconds());
      Thread reader = new Thread(() -> {
        try (Consumer consumer = c.consumer(topic, w.partitions(), w.settings())) {
          consumer.poll(Duration.ofMillis(200), (p, o, v, a) -> received.incrementAndGet());
          consumerReady.countDown();
          while (received.get() < records && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(100), (p, offset, value, attempt) -> {
              long now = System.nanoTime();
              ByteBuffer b = ByteBuffer.wrap(value);
              long scheduled = b.getLong(0);
              if (b.getLong(8) >= skip) {
                latency.recordNanos(now - scheduled);
              }
              received.incrementAndGet();
            });
          }
        } catch (Throwable e) {
          consumerError.set(e);
          consumerReady.countDown();
        }
      }, "perf-e2e-consumer");
      reader.start();
      try {
        consumerReady.await(60, TimeUnit.SECONDS);
        AtomicLong failed = new AtomicLong();
        long interval = 1_000_000_000L / w.rate();
        byte[] filler = payload(w.recordSize(), 7);
        long start;
        try (Producer p = c.producer(topic, w.settings())) {
          start = System.nanoTime();
          for (long i = 0; i < records && System.nanoTime() < deadline; i++) {
            long scheduled = start + i * interval;
            long wait;
            while ((wait = scheduled - System.nanoTime()) > 0) {
              LockSupport.parkNanos(wait);
            }
            byte[] value = filler.clone();
            ByteBuffer.wrap(value).putLong(0, scheduled).putLong(8, i);
            p.send(value, e -> {
              if (e != null) {
                failed.incrementAndGet();
              }
            });
          }
          p.flush();
        }
        double sendSeconds = (System.nanoTime() - start) / 1e9;
        reader.join(TimeUnit.SECONDS.toMillis(w.timeoutSeconds()));
        if (consumerError.get() != null) {
          run.fail("consumer: " + consumerError.get());
        } else if (failed.get() > 0 || received.get() != records) {
          run.fail("received " + received.get() + " of " + records + " records, " + failed.get() + " sends failed");
        }
        latency.putInto(run.values);
        run.values.put("records_per_s", records / sendSeconds);
        run.latencyCurve = latency.curve();
      } finally {
        reader.interrupt();
        reader.join(10_000);
      }
    });
  }

  /**
   * A prefilled topic drained by {@code consumers} members of one queue-semantics group, each record
   * acked as it is handed over. Timed from the first record received to every record acked and the
   * acks flushed; each (partition, offset) must be seen, redeliveries are counted.
   */
  private void ack(Workload w, SystemClient c, Run run) throws Exception {
    onFreshTopic(c, w, topic -> {
      String group = topic + "-g";
      if (!prefilled(c, topic, w, run)) {
        return;
      }
      c.prepareAckGroup(group, topic);
      BitSet[] seen = bitsets(w.partitions());
      AtomicLong distinct = new AtomicLong();
      AtomicLong redelivered = new AtomicLong();
      AtomicLong firstRecord = new AtomicLong();
      AtomicReference<Throwable> error = new AtomicReference<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(w.timeoutSeconds());
      double cpu = c.server().cpuSeconds();
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < w.consumers(); i++) {
        Thread t = new Thread(() -> {
          try (AckReader reader = c.ackReader(group, topic, w.settings())) {
            while (distinct.get() < w.records() && System.nanoTime() < deadline) {
              reader.pollAndAck(Duration.ofMillis(100), (p, offset, value, attempt) -> {
                firstRecord.compareAndSet(0, System.nanoTime());
                boolean fresh;
                synchronized (seen[p]) {
                  fresh = !seen[p].get((int) offset);
                  seen[p].set((int) offset);
                }
                if (fresh) {
                  distinct.incrementAndGet();
                }
                if (attempt > 1 || !fresh) {
                  redelivered.incrementAndGet();
                }
              });
            }
            reader.flush();
          } catch (Throwable e) {
            error.compareAndSet(null, e);
          }
        }, "perf-ack-" + i);
        threads.add(t);
        t.start();
      }
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(w.timeoutSeconds() + 60));
      }
      long end = System.nanoTime();
      run.values.put("broker_cpu_s", c.server().cpuSeconds() - cpu);
      if (error.get() != null) {
        run.fail("consumer: " + error.get());
        return;
      }
      if (distinct.get() != w.records()) {
        run.fail("acked " + distinct.get() + " distinct records of " + w.records());
        return;
      }
      putThroughput(w, run, end - firstRecord.get());
      run.values.put("redelivered", (double) redelivered.get());
    });
  }

  /** Each producer sends one record, waits for its answer, sends the next, for the workload's seconds. */
  private void synced(Workload w, SystemClient c, Run run) throws Exception {
    onFreshTopic(c, w, topic -> {
      byte[] value = payload(w.recordSize(), 3);
      Latency latency = new Latency();
      AtomicLong done = new AtomicLong();
      AtomicReference<Throwable> error = new AtomicReference<>();
      List<Producer> producers = new ArrayList<>();
      for (int i = 0; i < w.producers(); i++) {
        producers.add(c.producer(topic, w.settings()));
      }
      CountDownLatch go = new CountDownLatch(1);
      long[] window = new long[2];
      List<Thread> threads = new ArrayList<>();
      for (Producer p : producers) {
        Thread t = new Thread(() -> {
          try {
            go.await();
            while (System.nanoTime() < window[1] && error.get() == null) {
              long sent = System.nanoTime();
              CountDownLatch answered = new CountDownLatch(1);
              p.send(value, e -> {
                if (e != null) {
                  error.compareAndSet(null, e);
                }
                answered.countDown();
              });
              if (!answered.await(60, TimeUnit.SECONDS)) {
                error.compareAndSet(null, new IllegalStateException("no answer in 60 s"));
              }
              latency.recordNanos(System.nanoTime() - sent);
              done.incrementAndGet();
            }
          } catch (Throwable e) {
            error.compareAndSet(null, e);
          }
        }, "perf-synced");
        threads.add(t);
        t.start();
      }
      double cpu = c.server().cpuSeconds();
      window[0] = System.nanoTime();
      window[1] = window[0] + TimeUnit.SECONDS.toNanos(w.seconds());
      go.countDown();
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(w.seconds() + 90));
      }
      double seconds = (System.nanoTime() - window[0]) / 1e9;
      run.values.put("broker_cpu_s", c.server().cpuSeconds() - cpu);
      producers.forEach(Producer::close);
      if (error.get() != null) {
        run.fail(error.get().toString());
        return;
      }
      run.values.put("records_per_s", done.get() / seconds);
      latency.putInto(run.values);
      run.latencyCurve = latency.curve();
    });
  }

  /** What a workload does with a broker of its own. */
  private interface OnServer {
    void run(Server s) throws Exception;
  }

  /** A fresh broker of the system's kind for {@code body}, stopped and deleted after it. */
  private void onFreshServer(String system, String tag, OnServer body) throws Exception {
    Server s = systems.freshServer(system, tag);
    try {
      body.run(s);
    } finally {
      systems.discard(s);
    }
  }

  private void startEmpty(Workload w, String system, Run run) throws Exception {
    onFreshServer(system, "empty", s -> {
      s.start();
      run.values.put("ready_ms", (double) s.readyMillis);
      run.values.put("rss_mib", s.rssMib());
    });
  }

  /**
   * Each repeat fills a fresh broker with {@code bytes} of records (not timed), stops it, then times
   * its start on that data; the broker and its data are deleted after. (Keeping the filled brokers
   * across repeats left 20 GiB on the disk during the other workloads, and about 50 of the
   * 1,000-partitions workload's writes then failed: most likely Brook's disk guard, which keeps 64 MiB
   * free per active writer.)
   */
  private void startFull(Workload w, String system, Run run) throws Exception {
    onFreshServer(system, "full", s -> {
      s.start();
      try (SystemClient c = systems.clientOf(system, s)) {
        String topic = topic(w);
        c.createTopic(topic, w.partitions());
        Sent sent = send(c, topic, w, w.records(), w.producers(), null);
        if (sent.problem(w.records()) != null) {
          throw new IllegalStateException("fill: " + sent.problem(w.records()));
        }
      }
      s.stop();
      long bytes = s.dataBytes();
      if (bytes < w.bytes()) {
        run.fail("the data directory holds " + bytes + " bytes, less than the " + w.bytes() + " written");
      }
      s.start();
      run.values.put("ready_ms", (double) s.readyMillis);
      run.values.put("rss_mib", s.rssMib());
      run.values.put("data_gib", bytes / (double) (1L << 30));
    });
  }

  /** A fresh broker; topics of 100 partitions up to the workload's count; one record to each partition. */
  private void partitions(Workload w, String system, Run run) throws Exception {
    onFreshServer(system, "partitions", s -> {
      s.start();
      run.values.put("rss_idle_mib", s.rssMib());
      try (SystemClient c = systems.clientOf(system, s)) {
        int per = Math.min(100, w.partitions());
        List<String> topics = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int made = 0; made < w.partitions(); made += per) {
          String topic = topic(w);
          c.createTopic(topic, Math.min(per, w.partitions() - made));
          topics.add(topic);
        }
        run.values.put("create_s", (System.nanoTime() - t0) / 1e9);
        AtomicLong failed = new AtomicLong();
        AtomicReference<Throwable> firstError = new AtomicReference<>();
        CountDownLatch answered = new CountDownLatch(w.partitions());
        byte[] value = payload(w.recordSize(), 5);
        int left = w.partitions();
        for (String topic : topics) {
          int n = Math.min(per, left);
          left -= n;
          try (Producer p = c.producer(topic, w.settings())) {
            for (int i = 0; i < n; i++) {
              p.send(i, value, e -> {
                if (e != null) {
                  failed.incrementAndGet();
                  firstError.compareAndSet(null, e);
                }
                answered.countDown();
              });
            }
            p.flush();
          }
        }
        if (!answered.await(w.timeoutSeconds(), TimeUnit.SECONDS) || failed.get() > 0) {
          run.fail(failed.get() + " of " + w.partitions() + " records failed or unanswered"
              + (firstError.get() != null ? ", first: " + firstError.get() : ""));
        }
        Thread.sleep(2000); // lets background work settle (index files, caches) before the reading
        run.values.put("rss_mib", s.rssMib());
      }
    });
  }
}
