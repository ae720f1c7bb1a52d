package io.brook.broker.it.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.brook.broker.it.BrokerProcess;
import io.brook.broker.it.fuzz.RawCall.Ending;
import io.brook.broker.it.fuzz.RpcCatalog.Rpc;
import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DeleteTopicRequest;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.FlowControl;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.ListTopicsRequest;
import io.brook.protocol.v1.OffsetCommit;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.Record;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.ReceiveResponse;
import io.brook.protocol.v1.TopicDescription;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fuzzes every RPC of the brook.v1 contract against a real broker process with a small heap:
 * random well-formed messages (extreme numbers, hostile and unicode strings, long repeated fields),
 * the same broken on the wire (bit flips, truncation, lying length fields, random bytes) and wrong
 * message counts, sent through a raw byte[] marshaller so nothing on the client side checks them.
 * Streams get several messages, then a half-close or a cancel. {@link RpcPolicy} says what counts
 * as a correct answer (and which RPCs may wait); afterwards the broker must be alive, SERVING, free
 * of OutOfMemoryError, and still produce and fetch.
 *
 * <p>Replay. Each run prints its seed ("fuzz seed=...") in
 * broker/target/failsafe-reports/io.brook.broker.it.fuzz.GrpcFuzzIT-output.txt, and a failure
 * message names it with each failing case. Every case is made from (seed, iteration) alone:
 * <pre>
 *   ./mvnw -B -q -DskipTests package
 *   ./mvnw -B -pl broker verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
 *       -Dit.test=GrpcFuzzIT -Dfuzz.seed=SEED                         # the same run again
 *       ... -Dfuzz.from=N -Dfuzz.iterations=1                         # only case N
 *       ... -Dfuzz.parallel=1 -Dfuzz.seconds=600                      # one call at a time, longer
 *       ... -Dfuzz.only=AckService/Receive                             # one RPC (other cases)
 * </pre>
 * Defaults: a random seed, up to 60 s of calls (fuzz.seconds), 8 calls in flight (fuzz.parallel).
 */
@Timeout(value = 170, unit = TimeUnit.SECONDS)
class GrpcFuzzIT {
  private static final long SEED = Long.getLong("fuzz.seed", new java.security.SecureRandom().nextLong());
  private static final int FROM = Integer.getInteger("fuzz.from", 0);
  private static final int ITERATIONS = Integer.getInteger("fuzz.iterations", 1_000_000);
  private static final long SECONDS = Long.getLong("fuzz.seconds", 60);
  private static final int PARALLEL = Integer.getInteger("fuzz.parallel", 8);
  /** Only RPCs whose full name contains this (e.g. AckService/Receive); a different sequence of cases. */
  private static final String ONLY = System.getProperty("fuzz.only", "");
  /** The fuzzed broker's max.request.bytes: generated messages go over it now and then. */
  private static final int MAX_REQUEST_BYTES = 2 << 20;
  /** Each RPC must have been called at least this often, or the run proves little. */
  private static final int MIN_CALLS_PER_RPC = 20;

  @TempDir(cleanup = CleanupMode.ON_SUCCESS) static Path dir; // a failed run keeps the broker's log
  static BrokerProcess broker;
  static StreamObserver<ReceiveRequest> member;

  @BeforeAll
  static void start() throws Exception {
    System.out.println("fuzz seed=" + SEED + " from=" + FROM + " parallel=" + PARALLEL + " seconds=" + SECONDS
        + (ONLY.isEmpty() ? "" : " only=" + ONLY));
    broker = BrokerProcess.start(dir.resolve("data"), Map.of(), List.of("-Xmx256m"),
        "--set", "fetch.max.wait.ms=1000", "--set", "max.request.bytes=" + MAX_REQUEST_BYTES,
        // Limits sized to the small heap (about 140 KiB per partition and per group): fuzzed creates reach them.
        "--set", "max.topics=100", "--set", "max.partitions=500", "--set", "max.groups=200");
    seedState();
  }

  @AfterAll
  static void stop() throws Exception {
    if (member != null) {
      member.onCompleted();
    }
    if (broker != null) {
      broker.close();
    }
  }

  /** Topics with records and groups of both modes, so fuzzed calls naming them get past "unknown". */
  private static void seedState() {
    ManagedChannel ch = broker.channel();
    AdminServiceGrpc.AdminServiceBlockingStub admin = AdminServiceGrpc.newBlockingStub(ch);
    admin.createTopic(CreateTopicRequest.newBuilder().setName("fuzz-a").setPartitions(3).build());
    admin.createTopic(CreateTopicRequest.newBuilder().setName("fuzz-b").setPartitions(1).build());
    for (String topic : List.of("fuzz-a", "fuzz-b")) {
      ProduceBatch.Builder batch = ProduceBatch.newBuilder().setTopic(topic);
      for (int i = 0; i < 30; i++) {
        batch.addRecords(Record.newBuilder().setKey(ByteString.copyFromUtf8("k" + i))
            .setValue(ByteString.copyFromUtf8("v" + i)));
      }
      ProduceServiceGrpc.newBlockingStub(ch).produce(ProduceRequest.newBuilder().addBatches(batch).build());
    }
    GroupServiceGrpc.GroupServiceBlockingStub groups = GroupServiceGrpc.newBlockingStub(ch);
    groups.createGroup(CreateGroupRequest.newBuilder().setGroup("fuzz-ack").setMode(GroupMode.GROUP_MODE_ACK)
        .putConfig("auto.offset.reset", "earliest").build());
    groups.commitOffsets(CommitOffsetsRequest.newBuilder().setGroup("fuzz-offset")
        .addOffsets(OffsetCommit.newBuilder().setTopic("fuzz-a").setPartition(0).setOffset(1)).build());
    // A member that holds leases: fuzzed Settle calls naming fuzz-member reach the lease checks.
    member = AckServiceGrpc.newStub(ch).receive(new StreamObserver<>() {
      @Override public void onNext(ReceiveResponse r) {}

      @Override public void onError(Throwable t) {}

      @Override public void onCompleted() {}
    });
    member.onNext(ReceiveRequest.newBuilder().setGroup("fuzz-ack").addTopics("fuzz-a").addTopics("fuzz-b")
        .setClientId("fuzz-member").setFlowControl(FlowControl.newBuilder().setMaxOutstandingRecords(50)).build());
  }

  @Test
  void everyRpcAnswersEveryInputWithAClearStatus() throws Exception {
    List<Rpc> all = RpcCatalog.fromGeneratedCode();
    checkCatalog(all);
    List<Rpc> rpcs = all.stream().filter(r -> r.fullName().contains(ONLY)).toList();
    Map<String, MethodDescriptor<byte[], byte[]>> methods = new HashMap<>();
    rpcs.forEach(r -> methods.put(r.fullName(), RawCall.method(r.fullName(), r.type())));

    Map<String, Map<Status.Code, AtomicInteger>> seen = new ConcurrentHashMap<>();
    // Wrong answers by kind (RPC, status, description): how many, and the first case of each.
    Map<String, List<String>> failures = new ConcurrentHashMap<>();
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    // A channel of its own: the fuzzed calls share one connection, as one hostile client would.
    ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", broker.port()).usePlaintext()
        .maxInboundMessageSize(16 << 20).build();
    Semaphore inFlight = new Semaphore(PARALLEL);
    long started = System.nanoTime();
    long stopAt = started + TimeUnit.SECONDS.toNanos(SECONDS);
    int ran = 0;
    try {
      for (int i = FROM; i < FROM + ITERATIONS && System.nanoTime() < stopAt; i++) {
        FuzzCase c = FuzzCase.make(SEED, i, rpcs);
        inFlight.acquire();
        ran++;
        String rpc = c.rpc().fullName();
        RawCall.start(channel, methods.get(rpc), c.messages(), c.ending(), c.cancelAfterMs(),
            RpcPolicy.deadlineMs(rpc), timer).whenComplete((outcome, error) -> {
              try {
                Status status = error != null ? Status.fromThrowable(error) : outcome.status();
                seen.computeIfAbsent(rpc, k -> new ConcurrentHashMap<>())
                    .computeIfAbsent(status.getCode(), k -> new AtomicInteger()).incrementAndGet();
                boolean oversize = !c.rpc().type().clientSendsOneMessage()
                    && c.messages().stream().anyMatch(m -> m.length > MAX_REQUEST_BYTES);
                String wrong = RpcPolicy.judge(rpc, status, c.ending() == Ending.CANCEL, oversize);
                if (wrong != null) {
                  String kind = wrong + ": " + rpc + " " + status.getCode() + " " + status.getDescription()
                      + (status.getCause() != null ? " (client side: " + status.getCause() + ")" : "");
                  failures.computeIfAbsent(kind, k -> Collections.synchronizedList(new ArrayList<>()))
                      .add(c.describe());
                }
              } finally {
                inFlight.release();
              }
            });
      }
      boolean drained = inFlight.tryAcquire(PARALLEL, RpcPolicy.HANG_DEADLINE_MS + 10_000, TimeUnit.MILLISECONDS);
      assertThat(drained).as("every fuzzed call ended (the client's deadline ends a hung one)").isTrue();
    } finally {
      channel.shutdownNow();
      timer.shutdownNow();
    }
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    String summary = summary(rpcs, seen, ran, elapsedMs);
    System.out.println(summary);

    String replay = " (replay: -Dfuzz.seed=" + SEED + "; broker log: " + brokerLog() + ")";
    StringBuilder wrong = new StringBuilder();
    failures.forEach((kind, cases) -> wrong.append("\n").append(cases.size()).append(" x ").append(kind)
        .append("\n  first: ").append(cases.get(0)));
    assertThat(failures).as("wrong answers" + replay + "\n" + summary + wrong).isEmpty();
    if (FROM == 0 && ONLY.isEmpty() && ITERATIONS >= rpcs.size() * MIN_CALLS_PER_RPC) {
      for (Rpc r : rpcs) {
        int calls = seen.getOrDefault(r.fullName(), Map.of()).values().stream().mapToInt(AtomicInteger::get).sum();
        assertThat(calls).as("calls of " + r.fullName() + replay).isGreaterThanOrEqualTo(MIN_CALLS_PER_RPC);
      }
    }
    brokerIsWhole(replay);
  }

  /** Every RPC can be fuzzed: a known call shape, a protobuf schema, served by the broker. */
  private static void checkCatalog(List<Rpc> rpcs) throws Exception {
    assertThat(rpcs).as("RPCs found in the generated code").hasSizeGreaterThanOrEqualTo(20);
    for (Rpc r : rpcs) {
      assertThat(RpcPolicy.supported(r.type())).as(r.fullName() + " has a call type the fuzzer cannot drive: "
          + r.type()).isTrue();
    }
    Set<String> names = rpcs.stream().map(Rpc::fullName).collect(Collectors.toSet());
    assertThat(names).as("RPCs RpcPolicy.MAY_WAIT names must exist").containsAll(RpcPolicy.MAY_WAIT.keySet());
    Set<String> services = rpcs.stream().map(r -> r.fullName().substring(0, r.fullName().indexOf('/')))
        .collect(Collectors.toCollection(TreeSet::new));
    assertThat(RpcCatalog.servedServices(broker.channel())).as("brook.* services the broker serves")
        .isEqualTo(services);
  }

  private static String summary(List<Rpc> rpcs, Map<String, Map<Status.Code, AtomicInteger>> seen, int ran,
      long elapsedMs) {
    StringBuilder b = new StringBuilder("fuzz seed=" + SEED + ": " + ran + " calls over " + rpcs.size()
        + " RPCs in " + elapsedMs + " ms\n");
    for (Rpc r : rpcs) {
      Map<String, Integer> codes = new TreeMap<>();
      seen.getOrDefault(r.fullName(), Map.of()).forEach((code, n) -> codes.put(code.name(), n.get()));
      b.append(String.format("  %-42s %-16s %s%n", r.shortName(), r.type(), codes));
    }
    return b.toString();
  }

  /** After the storm: alive, SERVING, no OutOfMemoryError, and a produce and fetch round trip works. */
  private static void brokerIsWhole(String replay) throws Exception {
    assertThat(broker.isAlive()).as("broker process alive" + replay).isTrue();
    ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", broker.port()).usePlaintext().build();
    try {
      HealthCheckResponse health = HealthGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS)
          .check(HealthCheckRequest.getDefaultInstance());
      assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);

      AdminServiceGrpc.AdminServiceBlockingStub admin = AdminServiceGrpc.newBlockingStub(ch)
          .withDeadlineAfter(10, TimeUnit.SECONDS);
      createMakingRoom(admin, "after-fuzz");
      ProduceResult produced = ProduceServiceGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS)
          .produce(ProduceRequest.newBuilder().addBatches(ProduceBatch.newBuilder().setTopic("after-fuzz")
              .setPartition(0).addRecords(Record.newBuilder().setValue(ByteString.copyFromUtf8("still here"))))
              .build()).getResults(0);
      assertThat(produced.getErrorMessage()).isEmpty();
      PartitionRecords fetched = FetchServiceGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS)
          .fetch(FetchRequest.newBuilder().addPartitions(FetchPartition.newBuilder().setTopic("after-fuzz")
              .setPartition(0).setOffset(produced.getBaseOffset())).build()).getPartitions(0);
      assertThat(fetched.getRecordsList()).extracting(r -> r.getValue().toStringUtf8()).containsExactly("still here");
    } finally {
      ch.shutdownNow();
    }
    String log = broker.currentStartLog();
    assertThat(log).as("broker log" + replay).doesNotContain("OutOfMemoryError");
    // Operators' logs: bad input is the client's mistake, answered with a status, never a stack trace.
    List<String> traces = log.lines().filter(l -> l.startsWith("\tat ")).toList();
    assertThat(traces).as("stack traces in the broker log" + replay).isEmpty();
  }

  private static Path brokerLog() {
    return broker.dataDir().resolveSibling(broker.dataDir().getFileName() + "-broker.log");
  }

  /** Fuzzed calls may have used up max.topics or max.partitions: delete the largest topics until it fits. */
  private static void createMakingRoom(AdminServiceGrpc.AdminServiceBlockingStub admin, String topic) {
    for (int attempt = 0; ; attempt++) {
      try {
        admin.createTopic(CreateTopicRequest.newBuilder().setName(topic).setPartitions(1).build());
        return;
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() != Status.Code.RESOURCE_EXHAUSTED || attempt == 3) {
          throw e;
        }
      }
      TopicDescription largest = admin.listTopics(ListTopicsRequest.getDefaultInstance()).getTopicsList().stream()
          .max(java.util.Comparator.comparingInt(TopicDescription::getPartitionsCount)).orElseThrow();
      admin.deleteTopic(DeleteTopicRequest.newBuilder().setName(largest.getName()).build());
    }
  }

}
