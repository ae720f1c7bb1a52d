package io.brook.perf;

import com.google.protobuf.ByteString;
import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.FlowControl;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupPartition;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.LeasedRecord;
import io.brook.protocol.v1.LeasedRecords;
import io.brook.protocol.v1.OffsetRange;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ProduceStreamResponse;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.ReceiveResponse;
import io.brook.protocol.v1.Record;
import io.brook.protocol.v1.SettleFailure;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Ack-mode throughput and latency: M members of one ack group each hold a {@code AckService.Receive}
 * stream (by default each over its own channel); one producer in the same JVM sends N records of S
 * bytes to a fresh topic of P partitions over a produce stream (batches of B, F in flight, round robin
 * over the partitions, optionally paced to R records/s). Each member acks what it receives as soon as
 * a response arrives: one {@code ReceiveRequest} per response, the offsets coalesced into ranges.
 *
 * <p>Every record's value starts with 20 bytes: the producer's {@code System.nanoTime()} when its batch
 * was sent (8), its partition (4) and its sequence in that partition (8, which on a fresh topic is its
 * offset); the rest is random filler shared by all records. Measured:
 * <ul>
 *   <li>records/s from the first delivery (any member) to the last ack sent (any member);</li>
 *   <li>produce → ack latency: the ack's send time minus the record's produce send time, per record
 *       (HdrHistogram, µs, reported in ms);</li>
 *   <li>exactly once: every offset of every partition acked once, none missing, none twice, none that
 *       was never produced, each record's content matching its offset; redeliveries (attempt &gt; 1) and
 *       the broker's settle failures counted; at the end DescribeGroup must show every partition
 *       settled (committed offset = end offset, no unsettled records).</li>
 * </ul>
 * With {@code --prefill} every record is produced (and answered) before the members connect: the run then
 * measures delivery and acks alone, and produce → ack includes the time records waited in the log.
 * The topic and group names carry a run id, so runs can share one broker. A warm-up pass (its own topic
 * and group) runs first unless {@code --warmup=0}. Exit status: 0 ok, 1 the check failed, 2 timed out.
 *
 * <pre>java -cp perf/target/brook-perf.jar io.brook.perf.AckDriver HOST:PORT [--records=300000] [--size=1024]
 *     [--members=4] [--partitions=4] [--batch=100] [--inflight=8] [--rate=0 (records/s, 0: unpaced)]
 *     [--max-outstanding=1000] [--warmup=100000] [--timeout=120 (s)] [--shared-channel] [--prefill]
 *     [--direct-executor (members' callbacks on the network thread)]
 *     [--group-config=KEY=VALUE ...] [--json=FILE] [--label=TEXT]
 *     [--broker-pid=PID (a local broker: its CPU time during the measured pass goes into the JSON)]</pre>
 */
public final class AckDriver {
  /** Bytes of each value the driver uses itself: send time, partition, sequence. */
  static final int STAMP = 20;

  public static void main(String[] args) throws Exception {
    Options o = Options.parse(args);
    ManagedChannel admin = channel(o.host, o.port);
    int status;
    try {
      if (o.warmup > 0) {
        Result w = run(o, admin, "warmup", o.warmup);
        System.out.println("ack-driver: warm-up " + w.line());
        if (!w.ok()) {
          System.out.println("ack-driver: the warm-up failed its check; the measured run follows anyway");
        }
      }
      Result r = run(o, admin, "bench", o.records);
      System.out.println("ack-driver: " + r.line());
      if (!r.ok()) {
        System.out.println("ack-driver: CHECK FAILED: " + r.problems());
      }
      if (o.json != null) {
        Path path = Path.of(o.json);
        if (path.getParent() != null) {
          Files.createDirectories(path.getParent());
        }
        Files.writeString(path, r.json(o) + "\n", StandardCharsets.UTF_8);
      }
      status = r.timedOut ? 2 : r.ok() ? 0 : 1;
    } finally {
      admin.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    System.exit(status);
  }

  static ManagedChannel channel(String host, int port) {
    return channel(host, port, false);
  }

  /** direct: callbacks run on the network thread that read the message, with no hand-off to a pool. */
  static ManagedChannel channel(String host, int port, boolean direct) {
    NettyChannelBuilder b = NettyChannelBuilder.forAddress(host, port).usePlaintext().maxInboundMessageSize(64 << 20);
    if (direct) {
      b.directExecutor();
    }
    return b.build();
  }

  private static Result run(Options o, ManagedChannel admin, String name, long records) throws Exception {
    String topic = "ack-" + name + "-" + Long.toString(System.currentTimeMillis(), 36);
    String group = topic + "-g";
    AdminServiceGrpc.newBlockingStub(admin).createTopic(CreateTopicRequest.newBuilder().setName(topic)
        .setPartitions(o.partitions).build());
    Map<String, String> config = new TreeMap<>();
    config.put("auto.offset.reset", "earliest");
    config.putAll(o.groupConfig);
    try {
      GroupServiceGrpc.newBlockingStub(admin).createGroup(CreateGroupRequest.newBuilder().setGroup(group)
          .setMode(GroupMode.GROUP_MODE_ACK).putAllConfig(config).build());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.ALREADY_EXISTS) {
        throw e;
      }
    }

    // The plan: batch i goes to partition i % P, so each partition's record count is known up front.
    long[] perPartition = new long[o.partitions];
    long left = records;
    for (int i = 0; left > 0; i++) {
      int n = (int) Math.min(o.batch, left);
      perPartition[i % o.partitions] += n;
      left -= n;
    }
    Tracker tracker = new Tracker(topic, perPartition, o.size, (int) o.timeoutSeconds + 60);

    List<ManagedChannel> channels = new ArrayList<>();
    ManagedChannel shared = o.sharedChannel ? channel(o.host, o.port, o.directExecutor) : null;
    if (shared != null) {
      channels.add(shared);
    }
    List<Member> members = new ArrayList<>();
    Result result = new Result(name, records, o);
    result.groupConfig.putAll(config);
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(o.timeoutSeconds);
      ManagedChannel producerChannel = channel(o.host, o.port);
      channels.add(producerChannel);
      Producer producer = new Producer(producerChannel, topic, o, records, deadline);
      if (o.prefill) { // everything in the log before the first member connects: delivery and acks alone
        producer.run();
      }
      long cpuAtStart = cpuNanos();
      double brokerCpuAtStart = ProcessCpu.seconds(o.brokerPid);
      for (int m = 0; m < o.members; m++) {
        ManagedChannel ch = shared;
        if (ch == null) {
          ch = channel(o.host, o.port, o.directExecutor);
          channels.add(ch);
        }
        Member member = new Member(m, tracker);
        member.start(AckServiceGrpc.newStub(ch), group, topic, o.maxOutstanding);
        members.add(member);
      }
      for (Member member : members) {
        if (!member.joined.await(30, TimeUnit.SECONDS)) {
          throw new IllegalStateException("member " + member.index + " got no member id in 30 s"
              + (member.error.get() != null ? ": " + member.error.get() : ""));
        }
      }
      if (!o.prefill) {
        producer.run();
      }
      result.produceSeconds = producer.seconds;
      result.produceAnswerMicros = producer.answerMicros;
      result.produceProblem = producer.problem;

      long wait = deadline - System.nanoTime();
      result.timedOut = !tracker.allAcked.await(Math.max(0, wait), TimeUnit.NANOSECONDS);
      result.driverCpuSeconds = (cpuNanos() - cpuAtStart) / 1e9;
      double brokerCpuAtEnd = ProcessCpu.seconds(o.brokerPid);
      result.brokerCpuSeconds = brokerCpuAtStart < 0 || brokerCpuAtEnd < 0 ? -1 : brokerCpuAtEnd - brokerCpuAtStart;

      // The broker settles an ack after the member sent it: wait until DescribeGroup shows it all.
      long settleStart = System.nanoTime();
      GroupDescription description = null;
      long settleDeadline = settleStart + TimeUnit.SECONDS.toNanos(result.timedOut ? 1 : 10);
      do {
        description = describe(admin, group);
        if (settled(description, perPartition)) {
          result.brokerSettled = true;
          break;
        }
        Thread.sleep(10);
      } while (System.nanoTime() < settleDeadline);
      result.settleMs = (System.nanoTime() - settleStart) / 1e6;
      result.description = description;
    } finally {
      for (Member member : members) {
        member.close();
      }
      long closeDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      for (Member member : members) {
        member.closed.await(Math.max(0, closeDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
      for (ManagedChannel ch : channels) {
        ch.shutdownNow();
      }
      for (ManagedChannel ch : channels) {
        ch.awaitTermination(5, TimeUnit.SECONDS);
      }
    }
    result.collect(tracker, members);
    return result;
  }

  /** CPU time of this JVM (every thread), or 0 when the JVM does not say. */
  private static long cpuNanos() {
    if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        instanceof com.sun.management.OperatingSystemMXBean os) {
      return Math.max(0, os.getProcessCpuTime());
    }
    return 0;
  }

  private static GroupDescription describe(ManagedChannel admin, String group) {
    try {
      return GroupServiceGrpc.newBlockingStub(admin).withDeadlineAfter(5, TimeUnit.SECONDS)
          .describeGroup(DescribeGroupRequest.newBuilder().setGroup(group).build()).getGroup();
    } catch (StatusRuntimeException e) {
      return null;
    }
  }

  private static boolean settled(GroupDescription d, long[] perPartition) {
    if (d == null) {
      return false;
    }
    int seen = 0;
    for (GroupPartition p : d.getPartitionsList()) {
      if (p.getPartition() < 0 || p.getPartition() >= perPartition.length) {
        continue;
      }
      seen++;
      if (perPartition[p.getPartition()] == 0 && p.getEndOffset() == 0 && p.getUnsettledRecords() == 0) {
        continue; // nothing produced there: nothing to commit either
      }
      if (p.getEndOffset() != perPartition[p.getPartition()] || !p.hasCommittedOffset()
          || p.getCommittedOffset() != p.getEndOffset() || p.getUnsettledRecords() != 0) {
        return false;
      }
    }
    return seen == perPartition.length;
  }

  /** What every member saw, shared: ack counts per offset, content checks. */
  static final class Tracker {
    final String topic;
    final long[] perPartition;
    final int size;
    final AtomicIntegerArray[] acks;
    final long total;
    final AtomicLong ackedOnce = new AtomicLong();
    final AtomicLong ackedAgain = new AtomicLong();
    final AtomicLong outOfRange = new AtomicLong();
    final AtomicLong contentMismatch = new AtomicLong();
    final CountDownLatch allAcked = new CountDownLatch(1);
    /** Start of the run (nanoTime): second 0 of the per-second timeline. */
    final long originNanos = System.nanoTime();
    final int seconds;

    Tracker(String topic, long[] perPartition, int size, int seconds) {
      this.seconds = seconds;
      this.topic = topic;
      this.perPartition = perPartition;
      this.size = size;
      this.acks = new AtomicIntegerArray[perPartition.length];
      long sum = 0;
      for (int p = 0; p < perPartition.length; p++) {
        acks[p] = new AtomicIntegerArray(Math.toIntExact(perPartition[p]));
        sum += perPartition[p];
      }
      this.total = sum;
      if (total == 0) {
        allAcked.countDown();
      }
    }

    /** The record's produce send time (nanoTime), after checking its content against its offset. */
    long check(String topic, int partition, Record record) {
      ByteString value = record.getValue();
      if (value.size() < STAMP) {
        contentMismatch.incrementAndGet();
        return Long.MIN_VALUE;
      }
      ByteBuffer stamp = value.substring(0, STAMP).asReadOnlyByteBuffer();
      long sentAt = stamp.getLong(0);
      if (!topic.equals(this.topic) || value.size() != size || stamp.getInt(8) != partition
          || stamp.getLong(12) != record.getOffset()) {
        contentMismatch.incrementAndGet();
      }
      return sentAt;
    }

    void acked(int partition, long offset) {
      if (partition < 0 || partition >= acks.length || offset < 0 || offset >= perPartition[partition]) {
        outOfRange.incrementAndGet();
        return;
      }
      if (acks[partition].incrementAndGet((int) offset) == 1) {
        if (ackedOnce.incrementAndGet() == total) {
          allAcked.countDown();
        }
      } else {
        ackedAgain.incrementAndGet();
      }
    }

    /** Offsets never acked, and offsets acked more than once (each counted once), with examples. */
    long[] scan(List<String> examples) {
      long missing = 0;
      long multiple = 0;
      for (int p = 0; p < acks.length; p++) {
        for (int i = 0; i < perPartition[p]; i++) {
          int c = acks[p].get(i);
          if (c != 1) {
            if (c == 0) {
              missing++;
            } else {
              multiple++;
            }
            if (examples.size() < 10) {
              examples.add(p + "/" + i + (c == 0 ? " never acked" : " acked " + c + "x"));
            }
          }
        }
      }
      return new long[] {missing, multiple};
    }
  }

  /** One member: a Receive stream that acks each response's records in one message, as ranges. */
  static final class Member implements StreamObserver<ReceiveResponse> {
    final int index;
    final Tracker tracker;
    final Histogram latencyMicros = new Histogram(TimeUnit.HOURS.toMicros(1), 3);
    // Per second of the run (by ack time): records acked, and the longest produce -> ack (µs).
    final long[] ackedPerSecond;
    final long[] maxMicrosPerSecond;
    final CountDownLatch joined = new CountDownLatch(1);
    final CountDownLatch closed = new CountDownLatch(1);
    final AtomicReference<Throwable> error = new AtomicReference<>();
    final Map<String, Long> failures = new ConcurrentHashMap<>();
    volatile String memberId = "";
    private StreamObserver<ReceiveRequest> requests;
    private final Object sendLock = new Object();
    private boolean closing;
    // Written only by this member's callbacks (serialized by gRPC), read after the run.
    long responses;
    long deliveries;
    long redeliveries;
    long ackMessages;
    long ackRanges;
    long firstDeliveryNanos;
    long lastAckNanos;
    long duplicateInResponse;
    private long[] offsets = new long[1024];
    private long[] sentAt = new long[1024];
    private int[] partitions = new int[1024];

    Member(int index, Tracker tracker) {
      this.index = index;
      this.tracker = tracker;
      this.ackedPerSecond = new long[tracker.seconds];
      this.maxMicrosPerSecond = new long[tracker.seconds];
    }

    void start(AckServiceGrpc.AckServiceStub stub, String group, String topic, long maxOutstanding) {
      requests = stub.receive(this);
      send(ReceiveRequest.newBuilder().setGroup(group).addTopics(topic)
          .setFlowControl(FlowControl.newBuilder().setMaxOutstandingRecords(maxOutstanding)).build());
    }

    private void send(ReceiveRequest request) {
      synchronized (sendLock) {
        if (!closing) {
          requests.onNext(request);
        }
      }
    }

    void close() {
      synchronized (sendLock) {
        if (!closing && requests != null) {
          closing = true;
          try {
            requests.onCompleted();
          } catch (RuntimeException e) {
            // the stream already failed
          }
        }
      }
      if (requests == null) {
        closed.countDown();
      }
    }

    @Override
    public void onNext(ReceiveResponse r) {
      long now = System.nanoTime();
      if (!r.getMemberId().isEmpty()) {
        memberId = r.getMemberId();
        joined.countDown();
      }
      for (SettleFailure f : r.getFailuresList()) {
        OffsetRange range = f.getRange();
        long n = range.hasLastOffset() ? range.getLastOffset() - range.getFirstOffset() + 1 : 1;
        failures.merge(f.getErrorCode().name(), n, Long::sum);
      }
      if (r.getBatchesCount() == 0) {
        return;
      }
      responses++;
      if (firstDeliveryNanos == 0) {
        firstDeliveryNanos = now;
      }
      int n = 0;
      for (LeasedRecords batch : r.getBatchesList()) {
        n += batch.getRecordsCount();
      }
      if (offsets.length < n) {
        offsets = new long[Math.max(n, offsets.length * 2)];
        sentAt = new long[offsets.length];
        partitions = new int[offsets.length];
      }
      ReceiveRequest.Builder ack = ReceiveRequest.newBuilder();
      int i = 0;
      for (LeasedRecords batch : r.getBatchesList()) {
        int from = i;
        for (LeasedRecord leased : batch.getRecordsList()) {
          Record record = leased.getRecord();
          offsets[i] = record.getOffset();
          partitions[i] = batch.getPartition();
          sentAt[i] = tracker.check(batch.getTopic(), batch.getPartition(), record);
          if (leased.getDeliveryAttempt() > 1) {
            redeliveries++;
          }
          i++;
        }
        deliveries += i - from;
        ackRanges += addRanges(ack, batch.getTopic(), batch.getPartition(), from, i);
      }
      long ackAt = System.nanoTime();
      send(ack.build());
      ackMessages++;
      lastAckNanos = ackAt;
      int second = (int) Math.min(ackedPerSecond.length - 1, (ackAt - tracker.originNanos) / 1_000_000_000L);
      ackedPerSecond[second] += n;
      for (int k = 0; k < n; k++) {
        if (sentAt[k] != Long.MIN_VALUE) {
          long micros = Math.min(latencyMicros.getHighestTrackableValue(), Math.max(0, (ackAt - sentAt[k]) / 1000));
          latencyMicros.recordValue(micros);
          maxMicrosPerSecond[second] = Math.max(maxMicrosPerSecond[second], micros);
        }
        tracker.acked(partitions[k], offsets[k]);
      }
    }

    /** Coalesces offsets[from, to) of one partition into ranges on the ack; returns how many. */
    private int addRanges(ReceiveRequest.Builder ack, String topic, int partition, int from, int to) {
      if (from == to) {
        return 0;
      }
      long[] sorted = offsets;
      boolean ascending = true;
      for (int k = from + 1; k < to && ascending; k++) {
        ascending = offsets[k] > offsets[k - 1];
      }
      if (!ascending) {
        sorted = Arrays.copyOfRange(offsets, from, to);
        Arrays.sort(sorted);
        to -= from;
        from = 0;
      }
      int ranges = 0;
      long first = sorted[from];
      long last = first;
      for (int k = from + 1; k <= to; k++) {
        if (k < to && sorted[k] == last + 1) {
          last = sorted[k];
          continue;
        }
        if (k < to && sorted[k] == last) {
          duplicateInResponse++;
          continue;
        }
        OffsetRange.Builder range = OffsetRange.newBuilder().setTopic(topic).setPartition(partition)
            .setFirstOffset(first);
        if (last != first) {
          range.setLastOffset(last);
        }
        ack.addAcks(range);
        ranges++;
        if (k < to) {
          first = last = sorted[k];
        }
      }
      return ranges;
    }

    @Override
    public void onError(Throwable t) {
      error.compareAndSet(null, t);
      joined.countDown();
      closed.countDown();
    }

    @Override
    public void onCompleted() {
      closed.countDown();
    }
  }

  /** One produce stream, batches round robin over the partitions, each value stamped at send. */
  static final class Producer {
    final ManagedChannel channel;
    final String topic;
    final Options o;
    final long records;
    final long deadline;
    double seconds;
    String problem;
    /** Produce request sent -> its answer, µs (one value per request). */
    final Histogram answerMicros = new Histogram(TimeUnit.HOURS.toMicros(1), 3);

    Producer(ManagedChannel channel, String topic, Options o, long records, long deadline) {
      this.channel = channel;
      this.topic = topic;
      this.o = o;
      this.records = records;
      this.deadline = deadline;
    }

    void run() throws InterruptedException {
      byte[] filler = new byte[o.size - STAMP];
      new Random(1).nextBytes(filler);
      ByteString fill = ByteString.copyFrom(filler);
      long[] nextSequence = new long[o.partitions];
      Semaphore window = new Semaphore(o.inflight);
      AtomicReference<String> failure = new AtomicReference<>();
      CountDownLatch done = new CountDownLatch(1);
      // The stream answers in order: each answer is checked against the offsets the plan expects.
      ArrayDeque<long[]> expected = new ArrayDeque<>();
      StreamObserver<ProduceStreamRequest> stream = ProduceServiceGrpc.newStub(channel).produceStream(
          new StreamObserver<>() {
            @Override
            public void onNext(ProduceStreamResponse r) {
              long now = System.nanoTime();
              long[] want;
              synchronized (expected) {
                want = expected.poll();
              }
              for (ProduceResult result : r.getResponse().getResultsList()) {
                if (result.getErrorCodeValue() != 0) {
                  failure.compareAndSet(null, "produce failed: " + result.getErrorCode() + " "
                      + result.getErrorMessage());
                } else if (want == null || result.getPartition() != want[0] || result.getBaseOffset() != want[1]
                    || result.getRecordCount() != want[2]) {
                  failure.compareAndSet(null, "produce answered partition " + result.getPartition() + " offset "
                      + result.getBaseOffset() + " x" + result.getRecordCount() + ", expected "
                      + Arrays.toString(want) + " (is the topic fresh?)");
                }
              }
              if (want != null) {
                answerMicros.recordValue(Math.min(answerMicros.getHighestTrackableValue(), (now - want[3]) / 1000));
              }
              window.release();
            }

            @Override
            public void onError(Throwable t) {
              failure.compareAndSet(null, "produce stream failed: " + t);
              window.release(o.inflight);
              done.countDown();
            }

            @Override
            public void onCompleted() {
              done.countDown();
            }
          });
      long start = System.nanoTime();
      long sent = 0;
      for (int i = 0; sent < records && failure.get() == null && System.nanoTime() < deadline; i++) {
        if (o.rate > 0) {
          long due = start + (long) (sent * 1e9 / o.rate);
          for (long wait = due - System.nanoTime(); wait > 0; wait = due - System.nanoTime()) {
            LockSupport.parkNanos(wait);
          }
        }
        window.acquire();
        int p = i % o.partitions;
        int n = (int) Math.min(o.batch, records - sent);
        long now = System.nanoTime();
        ProduceBatch.Builder batch = ProduceBatch.newBuilder().setTopic(topic).setPartition(p);
        ByteBuffer stamp = ByteBuffer.allocate(STAMP);
        for (int k = 0; k < n; k++) {
          stamp.clear();
          stamp.putLong(now).putInt(p).putLong(nextSequence[p]++);
          batch.addRecords(Record.newBuilder().setValue(ByteString.copyFrom(stamp.array()).concat(fill)));
        }
        synchronized (expected) {
          expected.add(new long[] {p, nextSequence[p] - n, n, now});
        }
        stream.onNext(ProduceStreamRequest.newBuilder().setCorrelationId(i)
            .setRequest(ProduceRequest.newBuilder().addBatches(batch)).build());
        sent += n;
      }
      long remaining = deadline - System.nanoTime();
      if (!window.tryAcquire(o.inflight, Math.max(0, remaining), TimeUnit.NANOSECONDS)) {
        failure.compareAndSet(null, "produce answers missing at the timeout");
      }
      stream.onCompleted();
      done.await(5, TimeUnit.SECONDS);
      seconds = (System.nanoTime() - start) / 1e9;
      if (sent < records) {
        failure.compareAndSet(null, "produced only " + sent + " of " + records + " records before the timeout");
      }
      problem = failure.get();
    }
  }

  /** One run's figures and checks. */
  static final class Result {
    final String name;
    final long records;
    final Options o;
    final Histogram latency = new Histogram(TimeUnit.HOURS.toMicros(1), 3);
    double produceSeconds;
    Histogram produceAnswerMicros;
    double driverCpuSeconds;
    double brokerCpuSeconds = -1;
    String produceProblem;
    boolean timedOut;
    boolean brokerSettled;
    double settleMs;
    GroupDescription description;
    double seconds;
    long deliveries;
    long redeliveries;
    long brokerRedeliveries;
    long ackMessages;
    long ackRanges;
    long responses;
    long ackedOnce;
    long missing;
    long ackedTwice;
    long outOfRange;
    long contentMismatch;
    long duplicateInResponse;
    final List<String> examples = new ArrayList<>();
    final Map<String, Long> failures = new TreeMap<>();
    final Map<String, String> groupConfig = new TreeMap<>();
    final List<Long> perMember = new ArrayList<>();
    final List<Long> ackedPerSecond = new ArrayList<>();
    final List<Double> maxMsPerSecond = new ArrayList<>();
    final List<String> memberErrors = new ArrayList<>();

    Result(String name, long records, Options o) {
      this.name = name;
      this.records = records;
      this.o = o;
    }

    void collect(Tracker t, List<Member> members) {
      long first = Long.MAX_VALUE;
      long last = Long.MIN_VALUE;
      for (Member m : members) {
        latency.add(m.latencyMicros);
        deliveries += m.deliveries;
        redeliveries += m.redeliveries;
        ackMessages += m.ackMessages;
        ackRanges += m.ackRanges;
        responses += m.responses;
        duplicateInResponse += m.duplicateInResponse;
        perMember.add(m.deliveries);
        m.failures.forEach((k, v) -> failures.merge(k, v, Long::sum));
        if (m.deliveries > 0) {
          first = Math.min(first, m.firstDeliveryNanos);
          last = Math.max(last, m.lastAckNanos);
        }
        Throwable e = m.error.get();
        if (e != null && !(e instanceof StatusRuntimeException s && s.getStatus().getCode() == Status.Code.CANCELLED)) {
          memberErrors.add("member " + m.index + ": " + e);
        }
      }
      seconds = last > first ? (last - first) / 1e9 : 0;
      int used = 0;
      for (int i = 0; i < t.seconds; i++) {
        long acked = 0;
        long max = 0;
        for (Member m : members) {
          acked += m.ackedPerSecond[i];
          max = Math.max(max, m.maxMicrosPerSecond[i]);
        }
        ackedPerSecond.add(acked);
        maxMsPerSecond.add(max / 1000.0);
        if (acked > 0) {
          used = i + 1;
        }
      }
      ackedPerSecond.subList(used, ackedPerSecond.size()).clear();
      maxMsPerSecond.subList(used, maxMsPerSecond.size()).clear();
      long[] scan = t.scan(examples);
      missing = scan[0];
      ackedTwice = scan[1];
      ackedOnce = t.total - missing - ackedTwice;
      outOfRange = t.outOfRange.get();
      contentMismatch = t.contentMismatch.get();
      if (description != null) {
        for (GroupPartition p : description.getPartitionsList()) {
          brokerRedeliveries += p.getRedeliveries();
        }
      }
    }

    boolean ok() {
      return problems().isEmpty();
    }

    String problems() {
      List<String> p = new ArrayList<>();
      if (timedOut) {
        p.add("timed out after " + o.timeoutSeconds + " s");
      }
      if (produceProblem != null) {
        p.add(produceProblem);
      }
      if (missing > 0) {
        p.add(missing + " offsets never acked");
      }
      if (ackedTwice > 0) {
        p.add(ackedTwice + " offsets acked more than once");
      }
      if (outOfRange > 0) {
        p.add(outOfRange + " acks of offsets never produced");
      }
      if (contentMismatch > 0) {
        p.add(contentMismatch + " records whose content did not match their offset");
      }
      if (!failures.isEmpty()) {
        p.add("settle failures " + failures);
      }
      if (!brokerSettled) {
        p.add("DescribeGroup does not show every partition settled" + partitionsText());
      }
      if (!memberErrors.isEmpty()) {
        p.add(String.join("; ", memberErrors));
      }
      if (!examples.isEmpty()) {
        p.add("e.g. " + examples);
      }
      return String.join("; ", p);
    }

    private String partitionsText() {
      if (description == null) {
        return " (DescribeGroup failed)";
      }
      StringBuilder b = new StringBuilder(" (");
      for (GroupPartition p : description.getPartitionsList()) {
        b.append(p.getPartition()).append(": end ").append(p.getEndOffset()).append(" committed ")
            .append(p.hasCommittedOffset() ? Long.toString(p.getCommittedOffset()) : "-").append(" unsettled ")
            .append(p.getUnsettledRecords()).append("; ");
      }
      return b.append(")").toString();
    }

    double ms(double percentile) {
      return latency.getTotalCount() == 0 ? 0 : latency.getValueAtPercentile(percentile) / 1000.0;
    }

    double recordsPerSecond() {
      return seconds > 0 ? ackedOnce / seconds : 0;
    }

    String line() {
      return String.format(Locale.ROOT, "%d records x %d B, %d members, %d partitions, max outstanding %d%s: "
              + "%.2f s, %.0f records/s, %.1f MB/s; produce->ack ms p50 %.2f p99 %.2f p99.9 %.2f max %.2f; "
              + "produced in %.2f s; %d deliveries (%d redelivered), %.1f records per response, "
              + "CPU s: driver %.2f%s; acked exactly once %d/%d; %s",
          records, o.size, o.members, o.partitions, o.maxOutstanding, (o.rate > 0 ? ", paced " + o.rate + "/s" : "")
              + (o.prefill ? ", prefilled" : ""),
          seconds, recordsPerSecond(), recordsPerSecond() * o.size / 1e6, ms(50), ms(99), ms(99.9),
          latency.getMaxValue() / 1000.0, produceSeconds, deliveries, redeliveries,
          responses == 0 ? 0.0 : deliveries / (double) responses, driverCpuSeconds,
          brokerCpuSeconds < 0 ? "" : String.format(Locale.ROOT, " broker %.2f", brokerCpuSeconds), ackedOnce, records,
          ok() ? "ok" : "FAILED");
    }

    String json(Options o) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("label", o.label);
      m.put("time", Instant.now().toString());
      m.put("ok", ok());
      m.put("problems", problems());
      m.put("records", records);
      m.put("record_bytes", o.size);
      m.put("members", o.members);
      m.put("partitions", o.partitions);
      m.put("produce_batch", o.batch);
      m.put("produce_inflight", o.inflight);
      m.put("produce_rate", o.rate);
      m.put("max_outstanding_records", o.maxOutstanding);
      m.put("shared_channel", o.sharedChannel);
      m.put("prefill", o.prefill);
      m.put("direct_executor", o.directExecutor);
      m.put("group_config", groupConfig);
      m.put("warmup_records", o.warmup);
      m.put("seconds", seconds);
      m.put("records_per_s", recordsPerSecond());
      m.put("mb_per_s", recordsPerSecond() * o.size / 1e6);
      m.put("produce_seconds", produceSeconds);
      Map<String, Object> lat = new LinkedHashMap<>();
      lat.put("p50", ms(50));
      lat.put("p90", ms(90));
      lat.put("p99", ms(99));
      lat.put("p99_9", ms(99.9));
      lat.put("max", latency.getMaxValue() / 1000.0);
      lat.put("mean", latency.getMean() / 1000.0);
      lat.put("count", latency.getTotalCount());
      m.put("produce_to_ack_ms", lat);
      if (produceAnswerMicros != null && produceAnswerMicros.getTotalCount() > 0) {
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("p50", produceAnswerMicros.getValueAtPercentile(50) / 1000.0);
        answer.put("p99", produceAnswerMicros.getValueAtPercentile(99) / 1000.0);
        answer.put("max", produceAnswerMicros.getMaxValue() / 1000.0);
        answer.put("requests", produceAnswerMicros.getTotalCount());
        m.put("produce_answer_ms", answer);
      }
      m.put("deliveries", deliveries);
      m.put("redeliveries", redeliveries);
      m.put("broker_redeliveries", brokerRedeliveries);
      m.put("responses_with_records", responses);
      m.put("ack_messages", ackMessages);
      m.put("ack_ranges", ackRanges);
      m.put("acked_exactly_once", ackedOnce);
      m.put("never_acked", missing);
      m.put("acked_more_than_once", ackedTwice);
      m.put("acks_out_of_range", outOfRange);
      m.put("content_mismatches", contentMismatch);
      m.put("settle_failures", new TreeMap<>(failures));
      m.put("broker_settled", brokerSettled);
      m.put("broker_settle_wait_ms", settleMs);
      m.put("deliveries_per_member", perMember);
      m.put("acked_per_second", ackedPerSecond);
      m.put("max_produce_to_ack_ms_per_second", maxMsPerSecond);
      m.put("driver_cpu_seconds", driverCpuSeconds);
      m.put("broker_cpu_seconds", brokerCpuSeconds < 0 ? null : brokerCpuSeconds);
      m.put("cores", Runtime.getRuntime().availableProcessors());
      m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
      return Json.write(m);
    }
  }

  /** Enough JSON for the result: maps, lists, strings, numbers, booleans. */
  static final class Json {
    static String write(Object v) {
      StringBuilder b = new StringBuilder();
      write(b, v);
      return b.toString();
    }

    private static void write(StringBuilder b, Object v) {
      if (v == null) {
        b.append("null");
      } else if (v instanceof Map<?, ?> map) {
        b.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : map.entrySet()) {
          if (!first) {
            b.append(", ");
          }
          first = false;
          write(b, String.valueOf(e.getKey()));
          b.append(": ");
          write(b, e.getValue());
        }
        b.append('}');
      } else if (v instanceof List<?> list) {
        b.append('[');
        for (int i = 0; i < list.size(); i++) {
          if (i > 0) {
            b.append(", ");
          }
          write(b, list.get(i));
        }
        b.append(']');
      } else if (v instanceof Double d) {
        b.append(Double.isFinite(d) ? String.format(Locale.ROOT, "%.3f", d) : "null");
      } else if (v instanceof Number || v instanceof Boolean) {
        b.append(v);
      } else {
        b.append('"');
        for (char c : v.toString().toCharArray()) {
          switch (c) {
            case '"' -> b.append("\\\"");
            case '\\' -> b.append("\\\\");
            case '\n' -> b.append("\\n");
            default -> {
              if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
              } else {
                b.append(c);
              }
            }
          }
        }
        b.append('"');
      }
    }
  }

  /** Command line: HOST:PORT then --key=value options. */
  static final class Options {
    String host = "127.0.0.1";
    int port = 7070;
    long records = 300_000;
    int size = 1024;
    int members = 4;
    int partitions = 4;
    int batch = 100;
    int inflight = 8;
    long rate;
    long maxOutstanding = 1000;
    long warmup = 100_000;
    long timeoutSeconds = 120;
    long brokerPid;
    boolean sharedChannel;
    boolean prefill;
    boolean directExecutor;
    final Map<String, String> groupConfig = new LinkedHashMap<>();
    String json;
    String label = "";

    static Options parse(String[] args) throws IOException {
      Options o = new Options();
      DriverArgs.parse(args, (host, port) -> {
        o.host = host;
        o.port = port;
      }, (key, value, arg) -> {
        switch (key) {
          case "records" -> o.records = Long.parseLong(value);
          case "size" -> o.size = Integer.parseInt(value);
          case "members" -> o.members = Integer.parseInt(value);
          case "partitions" -> o.partitions = Integer.parseInt(value);
          case "batch" -> o.batch = Integer.parseInt(value);
          case "inflight" -> o.inflight = Integer.parseInt(value);
          case "rate" -> o.rate = Long.parseLong(value);
          case "max-outstanding" -> o.maxOutstanding = Long.parseLong(value);
          case "warmup" -> o.warmup = Long.parseLong(value);
          case "timeout" -> o.timeoutSeconds = Long.parseLong(value);
          case "shared-channel" -> o.sharedChannel = true;
          case "prefill" -> o.prefill = true;
          case "direct-executor" -> o.directExecutor = true;
          case "group-config" -> {
            int kv = value.indexOf('=');
            if (kv <= 0) {
              throw usage("--group-config needs KEY=VALUE");
            }
            o.groupConfig.put(value.substring(0, kv), value.substring(kv + 1));
          }
          case "broker-pid" -> o.brokerPid = Long.parseLong(value);
          case "json" -> o.json = value;
          case "label" -> o.label = value;
          default -> throw usage("unknown option " + arg);
        }
      }, Options::usage);
      if (o.size < STAMP) {
        throw usage("--size must be at least " + STAMP + " (the driver's stamp)");
      }
      if (o.members < 1 || o.partitions < 1 || o.batch < 1 || o.inflight < 1 || o.records < 0) {
        throw usage("members, partitions, batch and inflight must be at least 1");
      }
      return o;
    }

    private static IllegalArgumentException usage(String message) {
      return new IllegalArgumentException(message + "\nusage: AckDriver HOST:PORT [--records=N] [--size=B] "
          + "[--members=M] [--partitions=P] [--batch=B] [--inflight=F] [--rate=R] [--max-outstanding=N] "
          + "[--warmup=N] [--timeout=S] [--shared-channel] [--prefill] [--direct-executor] [--group-config=K=V] [--json=FILE] [--label=TEXT] "
          + "[--broker-pid=PID]");
    }
  }
}
