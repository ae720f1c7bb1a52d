package io.brook.perf;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.AlterTopicConfigRequest;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.PartitionDescription;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.Position;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.brook.protocol.v1.Record;
import io.brook.protocol.v1.TailPartition;
import io.brook.protocol.v1.TailRequest;
import io.brook.protocol.v1.TailResponse;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * Retention under load: does a large deletion stall producers or consumers?
 *
 * <ol>
 *   <li>Creates a topic of one partition with {@code segment.roll=1s} and {@code retention.ms=-1}, and
 *       prefills it unpaced ({@code --prefill-mib} of {@code --size} records, batches of 100, 8 in
 *       flight): a second of writing makes a segment, so the prefill leaves a few to tens of them.</li>
 *   <li>Starts a consumer tailing the partition from the end of the prefill ({@code FetchService.Tail})
 *       and a paced producer on the same partition ({@code --rate} records/s in requests of
 *       {@code --batch}, over one produce stream). Each record's value starts with the producer's
 *       {@code nanoTime} at the send.</li>
 *   <li>After {@code --warmup} s, a baseline window of {@code --baseline} s; then
 *       {@code AlterTopicConfig retention.ms=--retention-ms}: the broker's next retention pass deletes
 *       the prefill (and the segments of the warm-up and baseline, all older than a second). As soon as
 *       the log start has passed the prefill, retention.ms goes back to -1, so the run measures one large
 *       deletion; with {@code --keep-retention} it stays, and a segment a second is deleted from then on.
 *       The deletion window runs from the alter until the log start has passed the prefill and its files
 *       are gone, plus {@code --after} s, and at least as long as the baseline.</li>
 * </ol>
 *
 * <p>Produce latency is taken from each request's scheduled send time (start + i × interval) to its
 * answer, so a sender held up by a stall counts the wait too (no coordinated omission). A request
 * belongs to the window its scheduled send time falls in; a consumer response to the window it
 * arrived in. Every 50 ms DescribeTopic (log start, size, segment count), the prefill's files in the
 * partition directory and the file system's free space are sampled; the broker's "Retention deleted"
 * lines are read from its log ({@code --broker-log}) afterwards. Nothing is asserted: figures only.
 *
 * <p>"The deletion itself" is the interval from the last sample before the log start moved to the
 * broker's log line (the files are unlinked by then); its worst produce latency and longest consumer gap
 * are set against those of every interval as long in the baseline. Diagnostics: with {@code --disk} the
 * device's write and discard counters (/proc/diskstats) go into the per-second timeline; a watchdog
 * dumps the broker's threads ({@code jcmd}, to {@code --stall-dump}) when the consumer gets nothing, or a
 * produce request no answer, for {@code --stall-ms}; {@code --kernel-stacks} samples the kernel stacks of
 * broker threads in uninterruptible sleep around the deletion.
 *
 * <pre>java -cp perf/target/brook-perf.jar io.brook.perf.RetentionDriver HOST:PORT [--data-dir=DIR (the broker's)]
 *     [--prefill-mib=1024] [--size=1024] [--rate=5000] [--batch=50] [--inflight=32] [--warmup=5] [--baseline=10]
 *     [--after=5] [--max-wait=120] [--retention-ms=1000] [--keep-retention] [--stall-ms=1000] [--stall-dump=FILE] [--disk=DEVICE (e.g. vda)] [--kernel-stacks] [--broker-pid=PID] [--broker-log=FILE] [--json=FILE]
 *     [--label=TEXT]</pre>
 */
public final class RetentionDriver {
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final int STAMP = 8;

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    ManagedChannel admin = AckDriver.channel(o.host, o.port);
    try {
      Result r = run(o, admin);
      r.print(System.out);
      if (o.json != null) {
        Path path = Path.of(o.json);
        if (path.getParent() != null) {
          Files.createDirectories(path.getParent());
        }
        Files.writeString(path, AckDriver.Json.write(r.json(o)) + "\n", StandardCharsets.UTF_8);
      }
    } finally {
      admin.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    System.exit(0);
  }

  private static Result run(Options o, ManagedChannel admin) throws Exception {
    AdminServiceGrpc.AdminServiceBlockingStub adminStub = AdminServiceGrpc.newBlockingStub(admin);
    String topic = "retention-" + Long.toString(System.currentTimeMillis(), 36);
    adminStub.createTopic(CreateTopicRequest.newBuilder().setName(topic).setPartitions(1)
        .putConfig("segment.roll", "1s").putConfig("retention.ms", "-1").putConfig("retention.bytes", "-1").build());
    Result r = new Result(topic);
    Path partitionDir = o.dataDir == null ? null : o.dataDir.resolve("topics").resolve(topic).resolve("0");

    // 1. Prefill, unpaced.
    r.prefillRecords = o.prefillMib * (1L << 20) / o.size;
    r.prefillSeconds = prefill(admin, topic, r.prefillRecords, o.size);
    r.before = describe(adminStub, topic);
    r.prefillEnd = r.before.getEndOffset();
    r.prefillRecords = r.prefillEnd; // rounded up to whole batches
    List<Path> prefillFiles = segmentFiles(partitionDir); // every one of them is older than the alter below
    // Write the prefill back now, so that neither window pays for it (old data is long written back).
    long forceStart = System.nanoTime();
    force(prefillFiles);
    r.prefillForceSeconds = (System.nanoTime() - forceStart) / 1e9;
    r.duBefore = du(partitionDir);
    r.freeBefore = freeBytes(o.dataDir);
    System.out.printf(Locale.ROOT, "retention-driver: prefill %d records x %d B in %.1f s (%.0f MB/s), forced to disk "
            + "in %.1f s: %d segments, %.2f GiB (size_bytes), du %.2f GiB%n", r.prefillRecords, o.size,
        r.prefillSeconds, r.prefillRecords * (double) o.size / r.prefillSeconds / 1e6, r.prefillForceSeconds,
        r.before.getSegmentCount(), r.before.getSizeBytes() / (double) (1L << 30), r.duBefore / (double) (1L << 30));

    // 2. Consumer and paced producer on the same partition.
    long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
    long alterAt = start + TimeUnit.SECONDS.toNanos(o.warmup + o.baseline);
    r.baselineStart = alterAt - TimeUnit.SECONDS.toNanos(o.baseline);
    r.alterNanos = alterAt;
    long hardEnd = alterAt + TimeUnit.SECONDS.toNanos(o.maxWait + o.after);
    int maxRequests = (int) Math.min(Integer.MAX_VALUE - 8,
        (TimeUnit.NANOSECONDS.toSeconds(hardEnd - start) + 2) * o.rate / o.batch + 1);
    ManagedChannel consumerChannel = AckDriver.channel(o.host, o.port);
    ManagedChannel producerChannel = AckDriver.channel(o.host, o.port);
    Consumer consumer = new Consumer(topic, r.prefillEnd, o.size);
    Producer producer = new Producer(topic, o, start, maxRequests);
    Watchdog watchdog = null;
    try {
      consumer.start(FetchServiceGrpc.newStub(consumerChannel));
      producer.start(ProduceServiceGrpc.newStub(producerChannel));
      watchdog = new Watchdog(o, producer, consumer, r);
      watchdog.start();
      if (o.kernelStacks && o.brokerPid > 0) {
        r.kernelStacks = new KernelStacks(o.brokerPid, alterAt);
        r.kernelStacks.start();
      }

      // 3. Sample until the alter, alter, sample until the deletion is over (bounded by --max-wait).
      r.loadBefore = loadAverage();
      r.dirtyBefore = dirtyKib();
      boolean altered = false;
      long windowEnd = hardEnd;
      for (long next = System.nanoTime(); next < windowEnd; next += POLL_NANOS) {
        LockSupport.parkNanos(next - System.nanoTime());
        if (!altered && System.nanoTime() >= alterAt) {
          r.alterWallMs = System.currentTimeMillis();
          r.alterNanos = System.nanoTime();
          adminStub.alterTopicConfig(AlterTopicConfigRequest.newBuilder().setName(topic)
              .putSet("retention.ms", Long.toString(o.retentionMs)).build());
          r.alterReturnedMs = (System.nanoTime() - r.alterNanos) / 1e6;
          r.dirtyAtAlter = dirtyKib();
          altered = true;
          System.out.printf(Locale.ROOT, "retention-driver: baseline over; then retention.ms=%d (answered in %.1f ms), "
              + "load average %s, dirty %d kB%n", o.retentionMs, r.alterReturnedMs, loadAverage(), r.dirtyAtAlter);
        }
        Sample s = sample(adminStub, topic, o.dataDir, prefillFiles, o.disk);
        r.samples.add(s);
        if (altered && !o.keepRetention && !r.restored && s.logStart >= r.prefillEnd) {
          // One large deletion, not a segment a second after it: retention.ms back to -1.
          adminStub.alterTopicConfig(AlterTopicConfigRequest.newBuilder().setName(topic)
              .putSet("retention.ms", "-1").build());
          r.restored = true;
          r.restoredNanos = System.nanoTime();
        }
        if (altered && r.deletionDoneNanos < 0 && s.logStart >= r.prefillEnd && s.prefillFilesLeft == 0) {
          r.deletionDoneNanos = s.nanos;
          windowEnd = Math.max(s.nanos + TimeUnit.SECONDS.toNanos(o.after),
              r.alterNanos + TimeUnit.SECONDS.toNanos(o.baseline));
        }
      }
      r.windowEnd = windowEnd;
      r.loadAfter = loadAverage();
    } finally {
      if (watchdog != null) {
        watchdog.interrupt();
        watchdog.join(TimeUnit.SECONDS.toMillis(30));
      }
      if (r.kernelStacks != null) {
        r.kernelStacks.interrupt();
        r.kernelStacks.join(TimeUnit.SECONDS.toMillis(5));
      }
      producer.stop();
      r.unanswered = producer.awaitAnswers(10);
      consumer.stop();
      producerChannel.shutdownNow();
      consumerChannel.shutdownNow();
      producerChannel.awaitTermination(5, TimeUnit.SECONDS);
      consumerChannel.awaitTermination(5, TimeUnit.SECONDS);
    }

    // 4. After: what is left on disk, and what the broker logged.
    r.after = describe(adminStub, topic);
    r.duAfter = du(partitionDir);
    r.freeAfter = freeBytes(o.dataDir);
    r.deletedStillMapped = deletedMappings(o.brokerPid, partitionDir);
    for (Path f : prefillFiles) {
      if (Files.exists(f)) {
        r.prefillFilesLeft.add(f.getFileName() + " (" + Files.size(f) + " bytes, du " + du(f) + ")");
      }
    }
    r.brokerLines = o.brokerLog == null ? List.of() : brokerDeletions(o.brokerLog, topic + "-0");
    r.producer = producer;
    r.consumer = consumer;
    return r;
  }

  /** Produces {@code records} unpaced to partition 0: batches of 100, 8 in flight. Returns seconds. */
  private static double prefill(ManagedChannel channel, String topic, long records, int size) throws Exception {
    int batch = 100;
    int inFlight = 8;
    byte[] value = new byte[size];
    new Random(1).nextBytes(value);
    ProduceBatch.Builder b = ProduceBatch.newBuilder().setTopic(topic).setPartition(0);
    Record record = Record.newBuilder().setValue(ByteString.copyFrom(value)).build();
    for (int i = 0; i < batch; i++) {
      b.addRecords(record);
    }
    ProduceStreamRequest full = ProduceStreamRequest.newBuilder()
        .setRequest(ProduceRequest.newBuilder().addBatches(b)).build();
    return PipelinedProduce.send(channel, List.of(full), records, batch, inFlight, "prefill");
  }

  /** The paced producer: request i is due at start + i × interval and carries its send time. */
  static final class Producer {
    final String topic;
    final Options o;
    final long start;
    final long intervalNanos;
    final long[] scheduled;
    final long[] answered;
    final byte[] filler;
    final Semaphore window;
    final AtomicLong errors = new AtomicLong();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    volatile boolean stopping;
    volatile int sent;
    Thread sender;
    StreamObserver<ProduceStreamRequest> stream;
    final CountDownLatch closed = new CountDownLatch(1);

    Producer(String topic, Options o, long start, int maxRequests) {
      this.topic = topic;
      this.o = o;
      this.start = start;
      this.intervalNanos = TimeUnit.SECONDS.toNanos(1) * o.batch / o.rate;
      this.scheduled = new long[maxRequests];
      this.answered = new long[maxRequests];
      this.filler = new byte[o.size];
      new Random(2).nextBytes(filler);
      this.window = new Semaphore(o.inflight);
    }

    void start(ProduceServiceGrpc.ProduceServiceStub stub) {
      stream = stub.produceStream(new StreamObserver<>() {
        @Override
        public void onNext(ProduceStreamResponse r) {
          long now = System.nanoTime();
          int i = (int) r.getCorrelationId();
          answered[i] = now;
          for (ProduceResult result : r.getResponse().getResultsList()) {
            if (result.getErrorCodeValue() != 0) {
              errors.incrementAndGet();
            }
          }
          window.release();
        }

        @Override
        public void onError(Throwable t) {
          failure.compareAndSet(null, t);
          window.release(o.inflight);
          closed.countDown();
        }

        @Override
        public void onCompleted() {
          closed.countDown();
        }
      });
      sender = new Thread(this::send, "paced-producer");
      sender.start();
    }

    private void send() {
      try {
        for (int i = 0; i < scheduled.length && !stopping && failure.get() == null; i++) {
          long due = start + i * intervalNanos;
          for (long wait; (wait = due - System.nanoTime()) > 0; ) {
            LockSupport.parkNanos(wait);
          }
          while (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) { // a full window: the broker is behind
            if (stopping || failure.get() != null) {
              return;
            }
          }
          scheduled[i] = due;
          ProduceBatch.Builder b = ProduceBatch.newBuilder().setTopic(topic).setPartition(0);
          long now = System.nanoTime();
          for (int k = 0; k < o.batch; k++) {
            byte[] v = filler.clone();
            ByteBuffer.wrap(v).putLong(0, now);
            b.addRecords(Record.newBuilder().setValue(UnsafeByteOperations.unsafeWrap(v)));
          }
          stream.onNext(ProduceStreamRequest.newBuilder().setCorrelationId(i)
              .setRequest(ProduceRequest.newBuilder().addBatches(b)).build());
          sent = i + 1;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        failure.compareAndSet(null, e);
      }
    }

    void stop() throws InterruptedException {
      stopping = true;
      if (sender != null) {
        sender.join(TimeUnit.SECONDS.toMillis(10));
      }
    }

    /** Waits up to {@code seconds} for every answer, closes the stream; returns how many never came. */
    int awaitAnswers(int seconds) throws InterruptedException {
      if (stream == null) {
        return 0;
      }
      window.tryAcquire(o.inflight, seconds, TimeUnit.SECONDS);
      int missing = 0;
      for (int i = 0; i < sent; i++) {
        if (answered[i] == 0) {
          missing++;
        }
      }
      stream.onCompleted();
      closed.await(5, TimeUnit.SECONDS);
      return missing;
    }

    /** Produce latency of the requests scheduled in [from, to), in µs; unanswered ones count up to {@code end}. */
    Histogram latency(long from, long to, long end) {
      Histogram h = new Histogram(TimeUnit.SECONDS.toMicros(600), 3);
      for (int i = 0; i < sent; i++) {
        if (scheduled[i] >= from && scheduled[i] < to) {
          long done = answered[i] == 0 ? end : answered[i];
          h.recordValue(Math.min(h.getHighestTrackableValue(), Math.max(0, (done - scheduled[i]) / 1000)));
        }
      }
      return h;
    }

    /** How long the oldest unanswered request has been waiting, ns (0: none). */
    long oldestOutstanding(long now) {
      for (int i = Math.max(0, sent - o.inflight); i < sent; i++) {
        if (answered[i] == 0) {
          return now - scheduled[i];
        }
      }
      return 0;
    }

    /** The longest time a request was outstanding while overlapping [from, to), ns (unanswered: until end). */
    long worstOverlapping(long from, long to, long end) {
      long worst = 0;
      for (int i = 0; i < sent; i++) {
        long done = answered[i] == 0 ? end : answered[i];
        if (scheduled[i] < to && done > from) {
          worst = Math.max(worst, done - scheduled[i]);
        }
      }
      return worst;
    }
  }

  /**
   * Watches for a stall while the paced phase runs: the consumer silent, or a produce request
   * unanswered, for {@code --stall-ms}. Then it has the broker's threads dumped ({@code jcmd PID
   * Thread.print}, appended to {@code --stall-dump}), at most three times, 2 s apart.
   */
  static final class Watchdog extends Thread {
    final Options o;
    final Producer producer;
    final Consumer consumer;
    final Result r;

    Watchdog(Options o, Producer producer, Consumer consumer, Result r) {
      super("stall-watchdog");
      setDaemon(true);
      this.o = o;
      this.producer = producer;
      this.consumer = consumer;
      this.r = r;
    }

    @Override
    public void run() {
      long stall = TimeUnit.MILLISECONDS.toNanos(o.stallMs);
      long lastDump = Long.MIN_VALUE / 2;
      try {
        while (!isInterrupted()) {
          Thread.sleep(100);
          long now = System.nanoTime();
          if (now < r.baselineStart) {
            continue; // the warm-up: connections and JIT
          }
          long consumerSilent = now - Math.max(consumer.lastArrival, r.baselineStart);
          long oldestOutstanding = producer.oldestOutstanding(now);
          String what = consumerSilent >= stall ? String.format(Locale.ROOT, "consumer silent for %d ms",
              consumerSilent / 1_000_000)
              : oldestOutstanding >= stall ? String.format(Locale.ROOT, "a produce request outstanding for %d ms",
                  oldestOutstanding / 1_000_000) : null;
          if (what == null) {
            continue;
          }
          String at = String.format(Locale.ROOT, "%+.2f s after the alter", (now - r.alterNanos) / 1e9);
          synchronized (r.stalls) {
            if (r.stalls.isEmpty() || now - lastDump >= TimeUnit.SECONDS.toNanos(2)) {
              r.stalls.add(what + " at " + at);
            }
          }
          if (o.stallDump != null && o.brokerPid > 0 && r.stallDumps < 3 && now - lastDump >= TimeUnit.SECONDS.toNanos(2)) {
            lastDump = now;
            r.stallDumps++;
            dump(what + " at " + at);
          }
        }
      } catch (InterruptedException e) {
        // the run is over
      }
    }

    private void dump(String why) {
      try {
        Process p = new ProcessBuilder("jcmd", Long.toString(o.brokerPid), "Thread.print", "-l")
            .redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        p.waitFor(30, TimeUnit.SECONDS);
        Files.writeString(o.stallDump, "=== " + Instant.now() + ": " + why + "\n"
                + new String(out, StandardCharsets.UTF_8) + "\n", StandardCharsets.UTF_8,
            java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        System.out.println("retention-driver: STALL: " + why + "; broker threads dumped to " + o.stallDump);
      } catch (IOException e) {
        System.out.println("retention-driver: STALL: " + why + "; jcmd failed: " + e.getMessage());
      } catch (InterruptedException e) {
        interrupt();
      }
    }
  }

  /**
   * With {@code --kernel-stacks}: every 5 ms from 2 s before the alter to 12 s after it, the kernel
   * stack (/proc/PID/task/TID/stack) of each broker thread in uninterruptible sleep (state D: waiting
   * on the disk, the journal, a page lock), counted by thread name and the innermost frames.
   * Diagnostics, not figures: it reads a few hundred /proc files every 5 ms.
   */
  static final class KernelStacks extends Thread {
    final long pid;
    final long from;
    final long to;
    final long alter;
    /** thread name + frames → [samples, first, last] (ns after the alter). */
    final Map<String, long[]> seen = new LinkedHashMap<>();
    long samples;

    KernelStacks(long pid, long alter) {
      super("kernel-stacks");
      setDaemon(true);
      this.pid = pid;
      this.alter = alter;
      this.from = alter - TimeUnit.SECONDS.toNanos(2);
      this.to = alter + TimeUnit.SECONDS.toNanos(12);
    }

    @Override
    public void run() {
      Path tasks = Path.of("/proc/" + pid + "/task");
      try {
        for (long now = System.nanoTime(); now < to && !isInterrupted(); now = System.nanoTime()) {
          Thread.sleep(5);
          if (now < from) {
            continue;
          }
          samples++;
          List<Path> tids;
          try (Stream<Path> list = Files.list(tasks)) {
            tids = list.toList();
          } catch (IOException e) {
            return; // the broker is gone
          }
          for (Path tid : tids) {
            record(tid, now);
          }
        }
      } catch (InterruptedException e) {
        // the run is over
      }
    }

    private void record(Path tid, long now) {
      try {
        String stat = Files.readString(tid.resolve("stat"));
        int close = stat.lastIndexOf(')');
        if (close < 0 || close + 2 >= stat.length() || stat.charAt(close + 2) != 'D') {
          return;
        }
        String name = stat.substring(stat.indexOf('(') + 1, close);
        List<String> frames = new ArrayList<>();
        for (String f : Files.readAllLines(tid.resolve("stack"))) {
          String frame = f.replaceFirst("^\\[<[0-9a-f]+>\\] ", "").replaceFirst("\\+0x.*$", "");
          if (!frame.isEmpty() && frames.size() < 7) {
            frames.add(frame);
          }
        }
        String key = name.replaceAll("[0-9]+$", "#") + ": " + String.join(" < ", frames);
        long t = now - alter;
        synchronized (seen) {
          long[] v = seen.computeIfAbsent(key, k -> new long[] {0, t, t});
          v[0]++;
          v[2] = t;
        }
      } catch (IOException | RuntimeException e) {
        // the thread ended meanwhile
      }
    }

    /** The most frequent stacks, most first. */
    List<Map<String, Object>> top(int n) {
      List<Map.Entry<String, long[]>> entries;
      synchronized (seen) {
        entries = new ArrayList<>(seen.entrySet());
      }
      entries.sort((a, b) -> Long.compare(b.getValue()[0], a.getValue()[0]));
      List<Map<String, Object>> out = new ArrayList<>();
      for (Map.Entry<String, long[]> e : entries.subList(0, Math.min(n, entries.size()))) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("samples", e.getValue()[0]);
        m.put("first_s", e.getValue()[1] / 1e9);
        m.put("last_s", e.getValue()[2] / 1e9);
        m.put("stack", e.getKey());
        out.add(m);
      }
      return out;
    }
  }

  /** Tails partition 0 from the end of the prefill; keeps, per response, when it came and its records. */
  static final class Consumer {
    final String topic;
    final long from;
    final int size;
    final LongSeries arrivals = new LongSeries();
    final LongSeries counts = new LongSeries();
    final LongSeries oldestStamps = new LongSeries();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    volatile long next;
    volatile long gaps; // responses that did not start at the offset expected
    volatile boolean stopped;
    volatile long lastArrival;
    ClientCallStreamObserver<TailRequest> call;

    Consumer(String topic, long from, int size) {
      this.topic = topic;
      this.from = from;
      this.size = size;
      this.next = from;
    }

    void start(FetchServiceGrpc.FetchServiceStub stub) {
      TailRequest request = TailRequest.newBuilder().addPartitions(TailPartition.newBuilder().setTopic(topic)
          .setPartition(0).setStart(Position.newBuilder().setOffset(from))).build();
      stub.tail(request, new ClientResponseObserver<TailRequest, TailResponse>() {
        @Override
        public void beforeStart(ClientCallStreamObserver<TailRequest> requestStream) {
          call = requestStream;
        }

        @Override
        public void onNext(TailResponse response) {
          long now = System.nanoTime();
          PartitionRecords pr = response.getRecords();
          if (pr.getErrorCodeValue() != 0) {
            failure.compareAndSet(null, new IllegalStateException(pr.getErrorMessage()));
            return;
          }
          int n = pr.getRecordsCount();
          if (n == 0) {
            return;
          }
          if (pr.getRecords(0).getOffset() != next) {
            gaps++;
          }
          next = pr.getRecords(n - 1).getOffset() + 1;
          long oldest = Long.MAX_VALUE;
          for (Record rec : pr.getRecordsList()) {
            ByteString v = rec.getValue();
            if (v.size() >= STAMP) {
              oldest = Math.min(oldest, v.substring(0, STAMP).asReadOnlyByteBuffer().getLong());
            }
          }
          lastArrival = now;
          synchronized (Consumer.this) {
            arrivals.add(now);
            counts.add(n);
            oldestStamps.add(oldest);
          }
        }

        @Override
        public void onError(Throwable t) {
          if (!stopped) { // after stop() the cancellation arrives here too
            failure.compareAndSet(null, t);
          }
        }

        @Override
        public void onCompleted() {}
      });
    }

    void stop() {
      stopped = true;
      if (call != null) {
        call.cancel("benchmark over", null);
      }
    }

    /** The longest time between two responses (or since the last one, up to end) overlapping [from, to), ns. */
    synchronized long longestGapOverlapping(long from, long to, long end) {
      long worst = 0;
      long previous = -1;
      for (int i = 0; i < arrivals.size(); i++) {
        long t = arrivals.get(i);
        if (previous >= 0 && t > from && previous < to) {
          worst = Math.max(worst, t - previous);
        }
        previous = t;
      }
      if (previous >= 0 && previous < to && end > from) {
        worst = Math.max(worst, end - previous);
      }
      return worst;
    }

    /** Records, longest gap between responses, and produce → consume latency for arrivals in [from, to). */
    synchronized Map<String, Object> window(long from, long to) {
      long records = 0;
      long longestGap = 0;
      Histogram e2e = new Histogram(TimeUnit.SECONDS.toMicros(600), 3);
      long previous = -1;
      for (int i = 0; i < arrivals.size(); i++) {
        long t = arrivals.get(i);
        if (t >= from && t < to) {
          records += counts.get(i);
          longestGap = Math.max(longestGap, t - (previous < 0 ? from : Math.max(previous, from)));
          if (oldestStamps.get(i) != Long.MAX_VALUE) {
            e2e.recordValue(Math.min(e2e.getHighestTrackableValue(), Math.max(0, (t - oldestStamps.get(i)) / 1000)));
          }
        }
        previous = t;
      }
      if (previous < to) { // nothing arrived between the last response and the window's end
        longestGap = Math.max(longestGap, to - Math.max(previous, from));
      }
      double seconds = (to - from) / 1e9;
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("records", records);
      m.put("records_per_s", records / seconds);
      m.put("longest_gap_ms", longestGap / 1e6);
      m.put("produce_to_consume_ms", percentiles(e2e));
      return m;
    }
  }

  /** A growable long array (bounded by the run's length). */
  static final class LongSeries {
    private long[] values = new long[1024];
    private int size;

    void add(long v) {
      if (size == values.length) {
        values = java.util.Arrays.copyOf(values, size * 2);
      }
      values[size++] = v;
    }

    long get(int i) {
      return values[i];
    }

    int size() {
      return size;
    }
  }

  /**
   * One 50 ms sample: the partition as DescribeTopic sees it, the prefill's files, free space, and the
   * data's block device counters ({@link DiskStats}, null without {@code --disk}).
   */
  record Sample(long nanos, long logStart, long endOffset, long sizeBytes, int segments, int prefillFilesLeft,
      long freeBytes, DiskStats disk) {}

  /** Cumulative counters of a block device from /proc/diskstats (sectors are 512 B). */
  record DiskStats(long sectorsWritten, long writeMs, long discards, long sectorsDiscarded, long discardMs,
      long flushes) {
    static DiskStats read(String device) {
      if (device == null) {
        return null;
      }
      try (Stream<String> lines = Files.lines(Path.of("/proc/diskstats"))) {
        for (String line : (Iterable<String>) lines::iterator) {
          String[] f = line.trim().split("\\s+");
          if (f.length >= 20 && f[2].equals(device)) {
            return new DiskStats(Long.parseLong(f[9]), Long.parseLong(f[10]), Long.parseLong(f[14]),
                Long.parseLong(f[16]), Long.parseLong(f[17]), Long.parseLong(f[18]));
          }
        }
      } catch (IOException | RuntimeException e) {
        // no counters
      }
      return null;
    }
  }

  private static Sample sample(AdminServiceGrpc.AdminServiceBlockingStub admin, String topic, Path dataDir,
      List<Path> prefillFiles, String device) {
    PartitionDescription p = describe(admin, topic);
    int left = 0;
    for (Path f : prefillFiles) {
      if (Files.exists(f)) {
        left++;
      }
    }
    return new Sample(System.nanoTime(), p.getLogStartOffset(), p.getEndOffset(), p.getSizeBytes(),
        p.getSegmentCount(), left, freeBytes(dataDir), DiskStats.read(device));
  }

  private static PartitionDescription describe(AdminServiceGrpc.AdminServiceBlockingStub admin, String topic) {
    return admin.withDeadlineAfter(10, TimeUnit.SECONDS)
        .describeTopic(DescribeTopicRequest.newBuilder().setName(topic).build()).getTopic().getPartitions(0);
  }

  /** The segment files (*.cq4) of a partition directory, or none without one. */
  private static List<Path> segmentFiles(Path dir) throws IOException {
    if (dir == null || !Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".cq4")).sorted().toList();
    }
  }

  /** Bytes the directory takes on disk ({@code du -sB1}), or -1. */
  private static long du(Path dir) {
    if (dir == null) {
      return -1;
    }
    try {
      Process p = new ProcessBuilder("du", "-sB1", dir.toString()).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(30, TimeUnit.SECONDS);
      return Long.parseLong(out.trim().split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /** Free bytes of the file system holding {@code dir} (what df shows as available), or -1. */
  private static long freeBytes(Path dir) {
    try {
      return dir == null ? -1 : Files.getFileStore(dir).getUsableSpace();
    } catch (IOException e) {
      return -1;
    }
  }

  /** Mappings the broker still holds of deleted files in the partition directory (/proc/PID/maps), or -1. */
  private static int deletedMappings(long pid, Path dir) {
    if (pid <= 0 || dir == null) {
      return -1;
    }
    try (Stream<String> lines = Files.lines(Path.of("/proc/" + pid + "/maps"))) {
      String prefix = dir.toAbsolutePath().toString();
      return (int) lines.filter(l -> l.contains(prefix) && l.endsWith("(deleted)")).count();
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** fsync of each file (the prefill's segments): their dirty pages go to the device now. */
  private static void force(List<Path> files) throws IOException {
    for (Path f : files) {
      try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(f, java.nio.file.StandardOpenOption.READ)) {
        c.force(true);
      } catch (java.nio.file.NoSuchFileException e) {
        // deleted meanwhile: nothing to write back
      }
    }
  }

  /** Dirty page cache, kB (/proc/meminfo), or -1. */
  private static long dirtyKib() {
    try (Stream<String> lines = Files.lines(Path.of("/proc/meminfo"))) {
      return lines.filter(l -> l.startsWith("Dirty:")).mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", "")))
          .findFirst().orElse(-1);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "?";
    }
  }

  /** A "Retention deleted" line of the broker's log. */
  record BrokerDeletion(long wallMs, int segments, long firstOffset, long lastOffset, long bytes) {}

  private static final Pattern DELETED = Pattern.compile(
      "^(\\S+) .*Retention deleted (\\d+) segment\\(s\\) of (\\S+): offsets (\\d+) to (\\d+), (\\d+) bytes");

  private static List<BrokerDeletion> brokerDeletions(Path log, String partition) throws IOException {
    List<BrokerDeletion> out = new ArrayList<>();
    if (!Files.exists(log)) {
      return out;
    }
    for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
      Matcher m = DELETED.matcher(line);
      if (m.find() && m.group(3).equals(partition)) {
        long wall;
        try {
          wall = OffsetDateTime.parse(m.group(1)).toInstant().toEpochMilli();
        } catch (RuntimeException e) {
          wall = -1;
        }
        out.add(new BrokerDeletion(wall, Integer.parseInt(m.group(2)), Long.parseLong(m.group(4)),
            Long.parseLong(m.group(5)), Long.parseLong(m.group(6))));
      }
    }
    return out;
  }

  static Map<String, Object> percentiles(Histogram h) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("count", h.getTotalCount());
    m.put("p50", h.getValueAtPercentile(50) / 1000.0);
    m.put("p99", h.getValueAtPercentile(99) / 1000.0);
    m.put("p99_9", h.getValueAtPercentile(99.9) / 1000.0);
    m.put("max", h.getMaxValue() / 1000.0);
    return m;
  }

  /** Everything measured; times in nanoTime unless named otherwise. */
  static final class Result {
    final String topic;
    long prefillRecords;
    double prefillSeconds;
    long prefillEnd;
    PartitionDescription before;
    PartitionDescription after;
    long duBefore;
    long duAfter;
    long freeBefore;
    long freeAfter;
    int deletedStillMapped;
    long baselineStart;
    long alterNanos;
    long alterWallMs;
    double alterReturnedMs;
    long deletionDoneNanos = -1;
    boolean restored;
    long restoredNanos;
    long windowEnd;
    int unanswered;
    double prefillForceSeconds;
    final List<String> prefillFilesLeft = new ArrayList<>();
    final List<String> stalls = new ArrayList<>();
    int stallDumps;
    KernelStacks kernelStacks;
    long dirtyBefore = -1;
    long dirtyAtAlter = -1;
    String loadBefore = "?";
    String loadAfter = "?";
    final List<Sample> samples = new ArrayList<>();
    List<BrokerDeletion> brokerLines = List.of();
    Producer producer;
    Consumer consumer;

    Result(String topic) {
      this.topic = topic;
    }

    /** Seconds after the alter of the first sample meeting the condition, or null. */
    Double firstAfterAlter(java.util.function.Predicate<Sample> condition) {
      for (Sample s : samples) {
        if (s.nanos >= alterNanos && condition.test(s)) {
          return (s.nanos - alterNanos) / 1e9;
        }
      }
      return null;
    }

    Double logStartMoved() {
      return firstAfterAlter(s -> s.logStart > before.getLogStartOffset());
    }

    Double logStartPastPrefill() {
      return firstAfterAlter(s -> s.logStart >= prefillEnd);
    }

    Double prefillFilesGone() {
      return firstAfterAlter(s -> s.prefillFilesLeft == 0);
    }

    /** The first sample where the file system has at least 80 % of the prefill's disk usage back. */
    Double spaceFreed() {
      if (freeBefore < 0 || duBefore <= 0) {
        return null;
      }
      return firstAfterAlter(s -> s.freeBytes - freeBefore >= duBefore * 0.8);
    }

    /** The broker's first deletion of this partition: seconds after the alter, segments, bytes. */
    BrokerDeletion firstBrokerDeletion() {
      return brokerLines.isEmpty() ? null : brokerLines.get(0);
    }

    /**
     * The deletion proper, in nanoTime: from the sample before the one that first saw the log start move
     * (the segments left the index in between) to the broker's log line (written once the files are
     * unlinked), else to the sample that found the prefill's files gone. Null when not seen.
     */
    long[] deletionInterval() {
      Sample before = null;
      Long from = null;
      for (Sample s : samples) {
        if (s.nanos >= alterNanos && s.logStart > this.before.getLogStartOffset()) {
          from = before == null ? alterNanos : Math.max(alterNanos, before.nanos); // not before the alter
          break;
        }
        before = s;
      }
      if (from == null) {
        return null;
      }
      BrokerDeletion first = firstBrokerDeletion();
      long to;
      if (first != null && first.wallMs() >= 0) {
        to = alterNanos + TimeUnit.MILLISECONDS.toNanos(first.wallMs() - alterWallMs);
      } else {
        Double gone = prefillFilesGone();
        if (gone == null) {
          return null;
        }
        to = alterNanos + (long) (gone * 1e9);
      }
      return new long[] {from, Math.max(to, from + POLL_NANOS)};
    }

    /**
     * Worst produce latency and longest consumer gap overlapping the deletion proper, against the same
     * for every interval of that length in the baseline (sliding by 50 ms).
     */
    Map<String, Object> deletionProper() {
      long[] d = deletionInterval();
      if (d == null) {
        return null;
      }
      long length = d[1] - d[0];
      Histogram produce = new Histogram(TimeUnit.SECONDS.toMicros(600), 3);
      Histogram gap = new Histogram(TimeUnit.SECONDS.toMicros(600), 3);
      for (long a = baselineStart; a + length <= alterNanos; a += POLL_NANOS) {
        produce.recordValue(Math.min(produce.getHighestTrackableValue(),
            producer.worstOverlapping(a, a + length, windowEnd) / 1000));
        gap.recordValue(Math.min(gap.getHighestTrackableValue(), consumer.longestGapOverlapping(a, a + length,
            windowEnd) / 1000));
      }
      long worstProduce = producer.worstOverlapping(d[0], d[1], windowEnd);
      long longestGap = consumer.longestGapOverlapping(d[0], d[1], windowEnd);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("from_s", (d[0] - alterNanos) / 1e9);
      m.put("to_s", (d[1] - alterNanos) / 1e9);
      m.put("produce_worst_ms", worstProduce / 1e6);
      m.put("baseline_same_length_produce_worst_ms", spread(produce));
      m.put("baseline_share_below", shareBelow(produce, worstProduce / 1000));
      m.put("consumer_longest_gap_ms", longestGap / 1e6);
      m.put("baseline_same_length_consumer_gap_ms", spread(gap));
      m.put("baseline_gap_share_below", shareBelow(gap, longestGap / 1000));
      return m;
    }

    private static Map<String, Object> spread(Histogram h) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("intervals", h.getTotalCount());
      m.put("p50", h.getValueAtPercentile(50) / 1000.0);
      m.put("p90", h.getValueAtPercentile(90) / 1000.0);
      m.put("max", h.getMaxValue() / 1000.0);
      return m;
    }

    /** The share of the baseline's intervals whose figure was below {@code micros}. */
    private static double shareBelow(Histogram h, long micros) {
      return h.getTotalCount() == 0 ? Double.NaN
          : h.getCountBetweenValues(0, Math.max(0, micros - 1)) / (double) h.getTotalCount();
    }

    Histogram baselineLatency() {
      return producer.latency(baselineStart, alterNanos, windowEnd);
    }

    Histogram deletionLatency() {
      return producer.latency(alterNanos, windowEnd, windowEnd);
    }

    /** One row per second around the alter: produce requests and their worst latency, consumer records and gap. */
    List<Map<String, Object>> timeline() {
      List<Map<String, Object>> rows = new ArrayList<>();
      long second = TimeUnit.SECONDS.toNanos(1);
      for (long t = baselineStart; t < windowEnd; t += second) {
        long to = Math.min(t + second, windowEnd);
        Histogram h = producer.latency(t, to, windowEnd);
        Map<String, Object> c = consumer.window(t, to);
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("t", Math.round((t - alterNanos) / 1e9 * 10) / 10.0);
        row.put("produce_requests", h.getTotalCount());
        row.put("produce_max_ms", h.getMaxValue() / 1000.0);
        row.put("consumer_records", c.get("records"));
        row.put("consumer_longest_gap_ms", c.get("longest_gap_ms"));
        Sample first = null;
        Sample last = null;
        for (Sample s : samples) {
          if (s.nanos < t) {
            first = s;
          }
          if (s.nanos < to) {
            last = s;
          }
        }
        if (last != null) {
          row.put("log_start", last.logStart);
          row.put("segments", last.segments);
          row.put("size_bytes", last.sizeBytes);
        }
        if (first != null && first.disk != null && last.disk != null) {
          row.put("disk_written_mb", (last.disk.sectorsWritten() - first.disk.sectorsWritten()) * 512 / 1e6);
          row.put("disk_write_ms", last.disk.writeMs() - first.disk.writeMs());
          row.put("disk_discarded_mb", (last.disk.sectorsDiscarded() - first.disk.sectorsDiscarded()) * 512 / 1e6);
          row.put("disk_discards", last.disk.discards() - first.disk.discards());
          row.put("disk_discard_ms", last.disk.discardMs() - first.disk.discardMs());
          row.put("disk_flushes", last.disk.flushes() - first.disk.flushes());
        }
        rows.add(row);
      }
      return rows;
    }

    Map<String, Object> json(Options o) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("label", o.label);
      m.put("time", Instant.now().toString());
      m.put("topic", topic);
      m.put("record_bytes", o.size);
      m.put("prefill_records", prefillRecords);
      m.put("prefill_seconds", prefillSeconds);
      m.put("prefill_mb_per_s", prefillRecords * (double) o.size / prefillSeconds / 1e6);
      m.put("prefill_force_seconds", prefillForceSeconds);
      m.put("prefill_segments", before.getSegmentCount());
      m.put("prefill_size_bytes", before.getSizeBytes());
      m.put("rate", o.rate);
      m.put("batch", o.batch);
      m.put("inflight", o.inflight);
      m.put("warmup_s", o.warmup);
      m.put("baseline_s", o.baseline);
      m.put("deletion_window_s", (windowEnd - alterNanos) / 1e9);
      m.put("alter_time", Instant.ofEpochMilli(alterWallMs).toString());
      m.put("retention_ms", o.retentionMs);
      m.put("keep_retention", o.keepRetention);
      m.put("load_average_before", loadBefore);
      m.put("load_average_after", loadAfter);
      m.put("dirty_kib_at_baseline_start", dirtyBefore);
      m.put("dirty_kib_at_alter", dirtyAtAlter);
      Map<String, Object> deletion = new LinkedHashMap<>();
      deletion.put("alter_answered_ms", alterReturnedMs);
      deletion.put("log_start_moved_s", logStartMoved());
      deletion.put("log_start_past_prefill_s", logStartPastPrefill());
      deletion.put("prefill_files_gone_s", prefillFilesGone());
      deletion.put("space_freed_s", spaceFreed());
      deletion.put("done", deletionDoneNanos >= 0);
      deletion.put("prefill_files_left", prefillFilesLeft);
      deletion.put("retention_ms_restored_s", restored ? (restoredNanos - alterNanos) / 1e9 : null);
      List<Map<String, Object>> lines = new ArrayList<>();
      for (BrokerDeletion d : brokerLines) {
        Map<String, Object> l = new LinkedHashMap<>();
        l.put("logged_s", d.wallMs() < 0 ? null : (d.wallMs() - alterWallMs) / 1e3);
        l.put("segments", d.segments());
        l.put("first_offset", d.firstOffset());
        l.put("last_offset", d.lastOffset());
        l.put("bytes", d.bytes());
        lines.add(l);
      }
      deletion.put("broker_log", lines);
      deletion.put("deletion_proper", deletionProper());
      m.put("deletion", deletion);
      Map<String, Object> disk = new LinkedHashMap<>();
      disk.put("du_before", duBefore);
      disk.put("du_after", duAfter);
      disk.put("free_before", freeBefore);
      disk.put("free_after", freeAfter);
      disk.put("deleted_files_still_mapped", deletedStillMapped < 0 ? null : deletedStillMapped);
      disk.put("size_bytes_before", before.getSizeBytes());
      disk.put("size_bytes_after", after.getSizeBytes());
      disk.put("segments_before", before.getSegmentCount());
      disk.put("segments_after", after.getSegmentCount());
      disk.put("log_start_after", after.getLogStartOffset());
      disk.put("end_offset_after", after.getEndOffset());
      m.put("disk", disk);
      Map<String, Object> produce = new LinkedHashMap<>();
      Histogram b = baselineLatency();
      Histogram d = deletionLatency();
      produce.put("baseline_ms", percentiles(b));
      produce.put("deletion_ms", percentiles(d));
      produce.put("ratio", ratios(b, d));
      produce.put("errors", producer.errors.get());
      produce.put("unanswered", unanswered);
      produce.put("failure", producer.failure.get() == null ? null : producer.failure.get().toString());
      m.put("produce", produce);
      Map<String, Object> consume = new LinkedHashMap<>();
      consume.put("baseline", consumer.window(baselineStart, alterNanos));
      consume.put("deletion", consumer.window(alterNanos, windowEnd));
      consume.put("offset_gaps", consumer.gaps);
      consume.put("failure", consumer.failure.get() == null ? null : consumer.failure.get().toString());
      m.put("consume", consume);
      synchronized (stalls) {
        m.put("stalls", new ArrayList<>(stalls));
      }
      m.put("stall_ms", o.stallMs);
      if (kernelStacks != null) {
        m.put("kernel_stack_samples", kernelStacks.samples);
        m.put("kernel_stacks_in_d_state", kernelStacks.top(20));
      }
      m.put("timeline", timeline());
      m.put("cores", Runtime.getRuntime().availableProcessors());
      m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
      return m;
    }

    static Map<String, Object> ratios(Histogram base, Histogram del) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("p50", ratio(del.getValueAtPercentile(50), base.getValueAtPercentile(50)));
      m.put("p99", ratio(del.getValueAtPercentile(99), base.getValueAtPercentile(99)));
      m.put("p99_9", ratio(del.getValueAtPercentile(99.9), base.getValueAtPercentile(99.9)));
      m.put("max", ratio(del.getMaxValue(), base.getMaxValue()));
      return m;
    }

    static double ratio(double a, double b) {
      return b <= 0 ? Double.NaN : a / b;
    }

    void print(java.io.PrintStream out) {
      double gib = 1L << 30;
      out.printf(Locale.ROOT, "retention-driver: paced producer %d records/s (%d per request) and a tailing consumer on "
              + "%s-0; warm-up %d s, baseline %d s (load average %s, dirty %d kB), then retention.ms=%d%s%n",
          producer.o.rate, producer.o.batch, topic, producer.o.warmup, producer.o.baseline, loadBefore, dirtyBefore,
          producer.o.retentionMs, restored ? String.format(Locale.ROOT, ", back to -1 at +%.2f s",
              (restoredNanos - alterNanos) / 1e9) : producer.o.keepRetention ? ", kept" : "");
      BrokerDeletion first = firstBrokerDeletion();
      out.printf(Locale.ROOT, "retention-driver: deletion: log start %d -> %d at +%s s, past the prefill at +%s s, "
              + "prefill files gone at +%s s, space back (df) at +%s s%s%n", before.getLogStartOffset(),
          after.getLogStartOffset(), fmt(logStartMoved()), fmt(logStartPastPrefill()), fmt(prefillFilesGone()),
          fmt(spaceFreed()), first == null ? "" : String.format(Locale.ROOT,
              "; broker logged %d segment(s), %.2f GiB at +%.3f s (%d deletion line(s) in all)", first.segments(),
              first.bytes() / gib, (first.wallMs() - alterWallMs) / 1e3, brokerLines.size()));
      Map<String, Object> proper = deletionProper();
      if (proper != null) {
        @SuppressWarnings("unchecked")
        Map<String, Object> bp = (Map<String, Object>) proper.get("baseline_same_length_produce_worst_ms");
        @SuppressWarnings("unchecked")
        Map<String, Object> bg = (Map<String, Object>) proper.get("baseline_same_length_consumer_gap_ms");
        out.printf(Locale.ROOT, "retention-driver: during the deletion itself (%+.2f to %+.2f s): worst produce %.1f ms, "
                + "longest consumer gap %.1f ms; baseline intervals as long (%d): worst produce p50 %.1f p90 %.1f max %.1f "
                + "ms (%.0f %% below the deletion's), consumer gap p50 %.1f p90 %.1f max %.1f ms (%.0f %% below)%n",
            proper.get("from_s"), proper.get("to_s"), proper.get("produce_worst_ms"),
            proper.get("consumer_longest_gap_ms"), bp.get("intervals"), bp.get("p50"), bp.get("p90"), bp.get("max"),
            100 * (double) proper.get("baseline_share_below"), bg.get("p50"), bg.get("p90"), bg.get("max"),
            100 * (double) proper.get("baseline_gap_share_below"));
      }
      out.printf(Locale.ROOT, "retention-driver: disk: partition du %.2f GiB -> %.3f GiB, file system free %+.2f GiB, "
              + "segments %d -> %d, deleted files still mapped by the broker: %s%n", duBefore / gib, duAfter / gib,
          (freeAfter - freeBefore) / gib, before.getSegmentCount(), after.getSegmentCount(),
          deletedStillMapped < 0 ? "?" : Integer.toString(deletedStillMapped));
      Histogram b = baselineLatency();
      Histogram d = deletionLatency();
      out.printf(Locale.ROOT, "retention-driver: produce ms (scheduled send -> answer)  baseline %.1f s: p50 %.2f p99 %.2f "
              + "p99.9 %.2f max %.2f (%d)  |  deletion %.1f s: p50 %.2f p99 %.2f p99.9 %.2f max %.2f (%d)  |  "
              + "ratio p50 %.2f p99 %.2f p99.9 %.2f max %.2f; errors %d, unanswered %d%n",
          (alterNanos - baselineStart) / 1e9, b.getValueAtPercentile(50) / 1e3, b.getValueAtPercentile(99) / 1e3,
          b.getValueAtPercentile(99.9) / 1e3, b.getMaxValue() / 1e3, b.getTotalCount(),
          (windowEnd - alterNanos) / 1e9, d.getValueAtPercentile(50) / 1e3, d.getValueAtPercentile(99) / 1e3,
          d.getValueAtPercentile(99.9) / 1e3, d.getMaxValue() / 1e3, d.getTotalCount(),
          ratio(d.getValueAtPercentile(50), b.getValueAtPercentile(50)),
          ratio(d.getValueAtPercentile(99), b.getValueAtPercentile(99)),
          ratio(d.getValueAtPercentile(99.9), b.getValueAtPercentile(99.9)), ratio(d.getMaxValue(), b.getMaxValue()),
          producer.errors.get(), unanswered);
      Map<String, Object> cb = consumer.window(baselineStart, alterNanos);
      Map<String, Object> cd = consumer.window(alterNanos, windowEnd);
      out.printf(Locale.ROOT, "retention-driver: consumer  baseline: %.0f records/s, longest gap %.1f ms, produce->consume "
              + "p99 %.2f max %.2f ms  |  deletion: %.0f records/s, longest gap %.1f ms, p99 %.2f max %.2f ms; "
              + "offset gaps %d%s%n", (double) cb.get("records_per_s"), (double) cb.get("longest_gap_ms"),
          pct(cb, "p99"), pct(cb, "max"), (double) cd.get("records_per_s"), (double) cd.get("longest_gap_ms"),
          pct(cd, "p99"), pct(cd, "max"), consumer.gaps,
          consumer.failure.get() == null ? "" : ", FAILED: " + consumer.failure.get());
      out.println("retention-driver: timeline (s after the alter: produce requests, worst produce ms, consumer records,"
          + " longest consumer gap ms, segments" + (producer.o.disk == null ? ")"
              : "; " + producer.o.disk + ": MB written, MB discarded, discard requests and ms)"));
      StringBuilder line = new StringBuilder();
      for (Map<String, Object> row : timeline()) {
        line.append(String.format(Locale.ROOT, "  %+5.1f: %3d req %7.1f ms %6d rec %6.1f ms %3s seg", row.get("t"),
            row.get("produce_requests"), row.get("produce_max_ms"), row.get("consumer_records"),
            row.get("consumer_longest_gap_ms"), row.getOrDefault("segments", "?")));
        if (row.containsKey("disk_written_mb")) {
          line.append(String.format(Locale.ROOT, " | %5.0f MB wr %6.0f MB disc %5d disc %5d ms", row.get("disk_written_mb"),
              row.get("disk_discarded_mb"), row.get("disk_discards"), row.get("disk_discard_ms")));
        }
        line.append('\n');
      }
      out.print(line);
      if (!prefillFilesLeft.isEmpty()) {
        out.println("retention-driver: prefill files still in the partition directory: " + prefillFilesLeft);
      }
      synchronized (stalls) {
        out.println("retention-driver: stalls (nothing for " + producer.o.stallMs + " ms): "
            + (stalls.isEmpty() ? "none" : String.join("; ", stalls)));
      }
      if (kernelStacks != null) {
        out.printf(Locale.ROOT, "retention-driver: broker threads in D state (%d samples 5 ms apart, -2 to +12 s), "
            + "most frequent:%n", kernelStacks.samples);
        for (Map<String, Object> k : kernelStacks.top(12)) {
          out.printf(Locale.ROOT, "  %5d x (%+.2f to %+.2f s) %s%n", k.get("samples"), k.get("first_s"), k.get("last_s"),
              k.get("stack"));
        }
      }
      out.println("retention-driver: load average after " + loadAfter);
    }

    @SuppressWarnings("unchecked")
    private static double pct(Map<String, Object> window, String key) {
      return (double) ((Map<String, Object>) window.get("produce_to_consume_ms")).get(key);
    }

    private static String fmt(Double seconds) {
      return seconds == null ? "?" : String.format(Locale.ROOT, "%.2f", seconds);
    }
  }

  /** Command line: HOST:PORT then --key=value options. */
  static final class Options {
    String host = "127.0.0.1";
    int port = 7070;
    Path dataDir;
    long prefillMib = 1024;
    int size = 1024;
    long rate = 5000;
    int batch = 50;
    int inflight = 32;
    long warmup = 5;
    long baseline = 10;
    long after = 5;
    long maxWait = 120;
    long retentionMs = 1000;
    boolean keepRetention;
    long stallMs = 1000;
    String disk;
    boolean kernelStacks;
    Path stallDump;
    long brokerPid;
    Path brokerLog;
    String json;
    String label = "";

    static Options parse(String[] args) {
      Options o = new Options();
      DriverArgs.parse(args, (host, port) -> {
        o.host = host;
        o.port = port;
      }, (key, value, arg) -> {
        switch (key) {
          case "data-dir" -> o.dataDir = Path.of(value);
          case "prefill-mib" -> o.prefillMib = Long.parseLong(value);
          case "size" -> o.size = Integer.parseInt(value);
          case "rate" -> o.rate = Long.parseLong(value);
          case "batch" -> o.batch = Integer.parseInt(value);
          case "inflight" -> o.inflight = Integer.parseInt(value);
          case "warmup" -> o.warmup = Long.parseLong(value);
          case "baseline" -> o.baseline = Long.parseLong(value);
          case "after" -> o.after = Long.parseLong(value);
          case "max-wait" -> o.maxWait = Long.parseLong(value);
          case "retention-ms" -> o.retentionMs = Long.parseLong(value);
          case "keep-retention" -> o.keepRetention = true;
          case "stall-ms" -> o.stallMs = Long.parseLong(value);
          case "disk" -> o.disk = value.isEmpty() ? null : value;
          case "kernel-stacks" -> o.kernelStacks = true;
          case "stall-dump" -> o.stallDump = Path.of(value);
          case "broker-pid" -> o.brokerPid = Long.parseLong(value);
          case "broker-log" -> o.brokerLog = Path.of(value);
          case "json" -> o.json = value;
          case "label" -> o.label = value;
          default -> throw usage("unknown option " + arg);
        }
      }, Options::usage);
      if (o.size < STAMP || o.rate < 1 || o.batch < 1 || o.inflight < 1 || o.baseline < 1 || o.prefillMib < 1
          || o.warmup < 0 || o.after < 0 || o.maxWait < 1 || o.retentionMs < 0) {
        throw usage("size >= " + STAMP + ", rate, batch, inflight, baseline, prefill-mib, max-wait >= 1; "
            + "warmup, after, retention-ms >= 0");
      }
      if (o.prefillMib > 64 * 1024) {
        throw usage("--prefill-mib is at most 65536 (64 GiB)");
      }
      return o;
    }

    private static IllegalArgumentException usage(String message) {
      return new IllegalArgumentException(message + "\nusage: RetentionDriver HOST:PORT [--data-dir=DIR] "
          + "[--prefill-mib=1024] [--size=1024] [--rate=5000] [--batch=50] [--inflight=32] [--warmup=5] "
          + "[--baseline=10] [--after=5] [--max-wait=120] [--retention-ms=1000] [--keep-retention] [--stall-ms=1000] [--stall-dump=FILE] [--disk=DEVICE (e.g. vda)] [--kernel-stacks] [--broker-pid=PID] "
          + "[--broker-log=FILE] [--json=FILE] [--label=TEXT]");
    }
  }
}
