package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Message;
import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.AlterGroupConfigRequest;
import io.brook.protocol.v1.AlterTopicConfigRequest;
import io.brook.protocol.v1.Boundary;
import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.CreatePartitionsRequest;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DeleteGroupRequest;
import io.brook.protocol.v1.DeleteTopicRequest;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.DescribeForwardRouteRequest;
import io.brook.protocol.v1.ForwardServiceGrpc;
import io.brook.protocol.v1.ListForwardRoutesRequest;
import io.brook.protocol.v1.ListForwardRoutesResponse;
import io.brook.protocol.v1.PauseForwardRouteRequest;
import io.brook.protocol.v1.ResumeForwardRouteRequest;
import io.brook.protocol.v1.FlowControl;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.HeartbeatRequest;
import io.brook.protocol.v1.InitProducerRequest;
import io.brook.protocol.v1.JoinGroupRequest;
import io.brook.protocol.v1.LeaseExtension;
import io.brook.protocol.v1.Nack;
import io.brook.protocol.v1.OffsetRange;
import io.brook.protocol.v1.LeaveGroupRequest;
import io.brook.protocol.v1.ListGroupsRequest;
import io.brook.protocol.v1.ListGroupsResponse;
import io.brook.protocol.v1.ListOffsetsRequest;
import io.brook.protocol.v1.ListTopicsRequest;
import io.brook.protocol.v1.ListTopicsResponse;
import io.brook.protocol.v1.OffsetCommit;
import io.brook.protocol.v1.OffsetQuery;
import io.brook.protocol.v1.Position;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.ResetGroupOffsetsRequest;
import io.brook.protocol.v1.SettleRequest;
import io.brook.protocol.v1.TailPartition;
import io.brook.protocol.v1.TailRequest;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptors;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.stub.MetadataUtils;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every RPC of every brook.v1 service (from the generated descriptors) against a broker with auth
 * on, with no token, a bad token, a token without permission and the right token. A new RPC
 * fails {@link #everyRpcAnswersEachCredentialAsItShould} until it gets a request here (and a rule
 * in the broker, which refuses methods it has no rule for).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class AuthMatrixIT {
  static final String ROOT = "root-token-1234";
  static final String NOBODY = "nobody-token-5678";
  static final String ALICE = "alice-token-9012";
  static final String BAD = "bad-token-0000";
  static final String DL = "dl-token-3456";
  static final String BOB = "bob-token-7890";
  static final String CARL = "carl-token-2468";
  static final List<String> TOKENS = List.of(ROOT, NOBODY, ALICE, BAD, DL, BOB, CARL);
  static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization",
      Metadata.ASCII_STRING_MARSHALLER);

  @TempDir static Path dir;
  static BrokerProcess broker;
  static final AtomicInteger names = new AtomicInteger();

  @BeforeAll
  static void startBroker() throws Exception {
    Path permissions = Files.writeString(dir.resolve("permissions"), """
        # root may do anything; nobody only things that do not exist; alice produces to m-topic
        root * topic:*
        root * group:*
        nobody consume topic:other-*
        nobody consume group:other-*
        alice produce topic:m-topic
        # dl administers group dl-g; its dead letters may only go where it may produce and administer
        dl * group:dl-g
        dl produce,consume topic:dl-mine
        dl produce,admin topic:dl-granted
        # bob consumes s-a in group s-g, and nothing of s-b
        bob consume group:s-g
        bob consume topic:s-a
        # carl consumes in the matrix's groups but may not consume their topics
        carl consume group:m-group
        carl consume group:m-ack
        """);
    // a forward route to a Kafka address that refuses connections: the ForwardService calls need one
    Path config = Files.writeString(dir.resolve("brook.properties"), """
        forward.m-route.source=m-topic
        forward.m-route.bootstrap.servers=127.0.0.1:1
        """);
    broker = BrokerProcess.start(dir.resolve("data"), "--config", config.toString(), "--set", "auth.enabled=true",
        "--set", "auth.tokens=root=" + ROOT + ",nobody=" + NOBODY + ",alice=" + ALICE + ",dl=" + DL + ",bob=" + BOB + ",carl=" + CARL,
        "--set", "auth.permissions.file=" + permissions);
    Wire root = new Wire(as(ROOT));
    root.create("m-topic", 1);
    root.create("m-doomed", 1);
    root.produceValues("m-topic", 0, 3, "v");
    GroupServiceGrpc.GroupServiceBlockingStub groups = GroupServiceGrpc.newBlockingStub(as(ROOT));
    groups.createGroup(CreateGroupRequest.newBuilder().setGroup("m-group").build());
    groups.createGroup(CreateGroupRequest.newBuilder().setGroup("m-doomed-group").build());
    groups.createGroup(CreateGroupRequest.newBuilder().setGroup("m-ack").setMode(GroupMode.GROUP_MODE_ACK).build());
    root.create("s-a", 1);
    root.create("s-b", 1);
    groups.createGroup(CreateGroupRequest.newBuilder().setGroup("s-g").setMode(GroupMode.GROUP_MODE_ACK).build());
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  static Channel as(String token) {
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, "Bearer " + token);
    return ClientInterceptors.intercept(broker.channel(), MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  static ProduceRequest produce(String topic) {
    return ProduceRequest.newBuilder().addBatches(ProduceBatch.newBuilder().setTopic(topic).setPartition(0)
        .addRecords(Wire.value("x"))).build();
  }

  /** A valid request for each method; a method missing here fails the matrix. */
  static Map<String, Supplier<Message>> requests() {
    Map<String, Supplier<Message>> r = new HashMap<>();
    r.put(ProduceServiceGrpc.getProduceMethod().getFullMethodName(), () -> produce("m-topic"));
    r.put(ProduceServiceGrpc.getProduceStreamMethod().getFullMethodName(),
        () -> ProduceStreamRequest.newBuilder().setCorrelationId(1).setRequest(produce("m-topic")).build());
    r.put(ProduceServiceGrpc.getInitProducerMethod().getFullMethodName(), InitProducerRequest::getDefaultInstance);
    r.put(FetchServiceGrpc.getFetchMethod().getFullMethodName(), () -> FetchRequest.newBuilder()
        .addPartitions(FetchPartition.newBuilder().setTopic("m-topic").setPartition(0).setOffset(0)).build());
    r.put(FetchServiceGrpc.getTailMethod().getFullMethodName(), () -> TailRequest.newBuilder()
        .addPartitions(TailPartition.newBuilder().setTopic("m-topic").setPartition(0)
            .setStart(Position.newBuilder().setBoundary(Boundary.BOUNDARY_EARLIEST))).build());
    r.put(FetchServiceGrpc.getListOffsetsMethod().getFullMethodName(), () -> ListOffsetsRequest.newBuilder()
        .addQueries(OffsetQuery.newBuilder().setTopic("m-topic").setPartition(0)
            .setPosition(Position.newBuilder().setBoundary(Boundary.BOUNDARY_LATEST))).build());
    r.put(AdminServiceGrpc.getCreateTopicMethod().getFullMethodName(),
        () -> CreateTopicRequest.newBuilder().setName("m-new-" + names.incrementAndGet()).setPartitions(1).build());
    r.put(AdminServiceGrpc.getListTopicsMethod().getFullMethodName(), ListTopicsRequest::getDefaultInstance);
    r.put(AdminServiceGrpc.getDescribeTopicMethod().getFullMethodName(),
        () -> DescribeTopicRequest.newBuilder().setName("m-topic").build());
    r.put(AdminServiceGrpc.getAlterTopicConfigMethod().getFullMethodName(), () -> AlterTopicConfigRequest.newBuilder()
        .setName("m-topic").putSet("retention.ms", "86400000").build());
    r.put(AdminServiceGrpc.getCreatePartitionsMethod().getFullMethodName(),
        () -> CreatePartitionsRequest.newBuilder().setName("m-topic").setTotalPartitions(2).build());
    r.put(AdminServiceGrpc.getDeleteTopicMethod().getFullMethodName(),
        () -> DeleteTopicRequest.newBuilder().setName("m-doomed").build());
    r.put(GroupServiceGrpc.getJoinGroupMethod().getFullMethodName(), () -> JoinGroupRequest.newBuilder()
        .setGroup("m-group").setClientId("matrix").addTopics("m-topic").setSessionTimeoutMs(10_000)
        .setRebalanceTimeoutMs(10_000).build());
    r.put(GroupServiceGrpc.getHeartbeatMethod().getFullMethodName(),
        () -> HeartbeatRequest.newBuilder().setGroup("m-group").setMemberId("nobody-such").setGeneration(1).build());
    r.put(GroupServiceGrpc.getLeaveGroupMethod().getFullMethodName(),
        () -> LeaveGroupRequest.newBuilder().setGroup("m-group").setMemberId("nobody-such").build());
    r.put(GroupServiceGrpc.getCommitOffsetsMethod().getFullMethodName(), () -> CommitOffsetsRequest.newBuilder()
        .setGroup("m-group").addOffsets(OffsetCommit.newBuilder().setTopic("m-topic").setPartition(0).setOffset(1))
        .build());
    r.put(GroupServiceGrpc.getFetchCommittedOffsetsMethod().getFullMethodName(),
        () -> FetchCommittedOffsetsRequest.newBuilder().setGroup("m-group").build());
    r.put(GroupServiceGrpc.getCreateGroupMethod().getFullMethodName(),
        () -> CreateGroupRequest.newBuilder().setGroup("m-new-group-" + names.incrementAndGet()).build());
    r.put(GroupServiceGrpc.getAlterGroupConfigMethod().getFullMethodName(), () -> AlterGroupConfigRequest.newBuilder()
        .setGroup("m-group").putSet("auto.offset.reset", "earliest").build());
    r.put(GroupServiceGrpc.getListGroupsMethod().getFullMethodName(), ListGroupsRequest::getDefaultInstance);
    r.put(GroupServiceGrpc.getDescribeGroupMethod().getFullMethodName(),
        () -> DescribeGroupRequest.newBuilder().setGroup("m-group").build());
    r.put(GroupServiceGrpc.getResetGroupOffsetsMethod().getFullMethodName(), () -> ResetGroupOffsetsRequest.newBuilder()
        .setGroup("m-group").setPosition(Position.newBuilder().setBoundary(Boundary.BOUNDARY_EARLIEST))
        .setDryRun(true).build());
    r.put(GroupServiceGrpc.getDeleteGroupMethod().getFullMethodName(),
        () -> DeleteGroupRequest.newBuilder().setGroup("m-doomed-group").build());
    r.put(AckServiceGrpc.getReceiveMethod().getFullMethodName(), () -> ReceiveRequest.newBuilder().setGroup("m-ack")
        .addTopics("m-topic").setFlowControl(FlowControl.newBuilder().setMaxOutstandingRecords(10)).build());
    r.put(ForwardServiceGrpc.getListForwardRoutesMethod().getFullMethodName(),
        ListForwardRoutesRequest::getDefaultInstance);
    r.put(ForwardServiceGrpc.getDescribeForwardRouteMethod().getFullMethodName(),
        () -> DescribeForwardRouteRequest.newBuilder().setRoute("m-route").build());
    r.put(ForwardServiceGrpc.getPauseForwardRouteMethod().getFullMethodName(),
        () -> PauseForwardRouteRequest.newBuilder().setRoute("m-route").build());
    r.put(ForwardServiceGrpc.getResumeForwardRouteMethod().getFullMethodName(),
        () -> ResumeForwardRouteRequest.newBuilder().setRoute("m-route").build());
    r.put(AckServiceGrpc.getSettleMethod().getFullMethodName(),
        () -> SettleRequest.newBuilder().setGroup("m-ack").setMemberId("nobody-such").build());
    return r;
  }

  static List<MethodDescriptor<?, ?>> allMethods() {
    List<MethodDescriptor<?, ?>> methods = new ArrayList<>();
    for (ServiceDescriptor s : List.of(ProduceServiceGrpc.getServiceDescriptor(),
        FetchServiceGrpc.getServiceDescriptor(), AdminServiceGrpc.getServiceDescriptor(),
        GroupServiceGrpc.getServiceDescriptor(), AckServiceGrpc.getServiceDescriptor(),
        ForwardServiceGrpc.getServiceDescriptor())) {
      methods.addAll(s.getMethods());
    }
    methods.sort((a, b) -> a.getFullMethodName().compareTo(b.getFullMethodName()));
    return methods;
  }

  /** The first answer of a call, or how it ended; streams are cancelled after their first answer. */
  record Outcome(Status status, Object first) {
    @Override
    public String toString() {
      return status.getCode() + " " + status.getDescription() + (first == null ? "" : " first answer: " + first);
    }
  }

  @SuppressWarnings("unchecked")
  static Outcome call(MethodDescriptor<?, ?> method, List<Message> messages, String token) throws Exception {
    ClientCall<Object, Object> call = broker.channel().newCall((MethodDescriptor<Object, Object>) method,
        CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS));
    Metadata headers = new Metadata();
    if (token != null) {
      headers.put(AUTHORIZATION, "Bearer " + token);
    }
    CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(Object message) {
        outcome.complete(new Outcome(Status.OK, message));
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        outcome.complete(new Outcome(status, null));
      }
    }, headers);
    call.request(1);
    messages.forEach(call::sendMessage);
    if (method.getType().clientSendsOneMessage()) {
      call.halfClose();
    }
    try {
      return outcome.get(20, TimeUnit.SECONDS);
    } finally {
      call.cancel("the test has its answer", null);
    }
  }

  @Test
  void everyRpcAnswersEachCredentialAsItShould() throws Exception {
    Map<String, Supplier<Message>> requests = requests();
    List<MethodDescriptor<?, ?>> methods = allMethods();
    assertThat(requests.keySet()).as("a request for every RPC of brook.v1 (add one for a new RPC)")
        .containsExactlyInAnyOrderElementsOf(methods.stream().map(MethodDescriptor::getFullMethodName).toList());
    assertThat(methods).hasSizeGreaterThanOrEqualTo(25);

    List<String> failures = new ArrayList<>();
    for (MethodDescriptor<?, ?> m : methods) {
      String name = m.getFullMethodName();
      Supplier<Message> request = requests.get(name);
      expect(failures, name + " without token", call(m, List.of(request.get()), null), Status.Code.UNAUTHENTICATED,
          "no bearer token or client certificate");
      expect(failures, name + " with a bad token", call(m, List.of(request.get()), BAD), Status.Code.UNAUTHENTICATED,
          "unknown bearer token");
      Outcome nobody = call(m, List.of(request.get()), NOBODY);
      if (m == AdminServiceGrpc.getListTopicsMethod()) {
        check(failures, name + " without permission: an empty list, " + nobody, nobody.first() instanceof
            ListTopicsResponse r && r.getTopicsCount() == 0);
      } else if (m == GroupServiceGrpc.getListGroupsMethod()) {
        check(failures, name + " without permission: an empty list, " + nobody, nobody.first() instanceof
            ListGroupsResponse r && r.getGroupsCount() == 0);
      } else if (m == ForwardServiceGrpc.getListForwardRoutesMethod()) {
        check(failures, name + " without permission: an empty list, " + nobody, nobody.first() instanceof
            ListForwardRoutesResponse r && r.getRoutesCount() == 0);
      } else {
        expect(failures, name + " without permission", nobody, Status.Code.PERMISSION_DENIED, "principal nobody lacks ");
      }
      Outcome root = call(m, List.of(request.get()), ROOT);
      Status.Code expected = RIGHT_TOKEN.getOrDefault(m.getBareMethodName(), Status.Code.OK);
      check(failures, name + " with the right token: expected " + expected + ", got " + root,
          root.status().getCode() == expected);
      for (Outcome o : List.of(nobody, root)) {
        String text = o.toString();
        check(failures, name + " leaks a token: " + text, TOKENS.stream().noneMatch(text::contains));
      }
    }
    assertThat(failures).isEmpty();
  }

  /**
   * What root's call of each method gets past the auth check where it is not OK: the application
   * error its matrix request is built to meet (anything else, UNKNOWN above all, is a failure).
   */
  static final Map<String, Status.Code> RIGHT_TOKEN = Map.of(
      "Heartbeat", Status.Code.NOT_FOUND, // member nobody-such
      "LeaveGroup", Status.Code.NOT_FOUND, // member nobody-such
      "Settle", Status.Code.NOT_FOUND, // member nobody-such
      "AlterGroupConfig", Status.Code.INVALID_ARGUMENT, // m-group is an offset-mode group: it takes no config
      // JoinGroup (called before, methods go in name order) left member "matrix" in m-group
      "ResetGroupOffsets", Status.Code.FAILED_PRECONDITION);

  /** A forward route is seen with any permission on its source, changed only with admin on it (D71). */
  @Test
  void produceOnARoutesSourceShowsTheRouteButDoesNotPauseIt() throws Exception {
    Map<String, Supplier<Message>> requests = requests();
    Outcome describe = call(ForwardServiceGrpc.getDescribeForwardRouteMethod(),
        List.of(requests.get(ForwardServiceGrpc.getDescribeForwardRouteMethod().getFullMethodName()).get()), ALICE);
    assertThat(describe.status().getCode()).as(describe.toString()).isEqualTo(Status.Code.OK);
    for (MethodDescriptor<?, ?> m : List.of(ForwardServiceGrpc.getPauseForwardRouteMethod(),
        ForwardServiceGrpc.getResumeForwardRouteMethod())) {
      Outcome o = call(m, List.of(requests.get(m.getFullMethodName()).get()), ALICE);
      assertThat(o.status().getCode()).as(m.getFullMethodName() + " " + o).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(o.status().getDescription())
          .isEqualTo("principal alice lacks admin on topic m-topic (the source of forward route m-route)");
    }
  }

  /** Consume on the group is not enough where the request names topics: each topic is checked too. */
  @Test
  void consumeOnTheGroupAloneDoesNotReachItsTopics() throws Exception {
    Map<String, Supplier<Message>> requests = requests();
    for (MethodDescriptor<?, ?> m : List.of(GroupServiceGrpc.getJoinGroupMethod(),
        GroupServiceGrpc.getCommitOffsetsMethod(), AckServiceGrpc.getReceiveMethod())) {
      Outcome o = call(m, List.of(requests.get(m.getFullMethodName()).get()), CARL);
      assertThat(o.status().getCode()).as(m.getFullMethodName() + " " + o).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(o.status().getDescription()).isEqualTo("principal carl lacks consume on topic m-topic");
    }
  }

  private static void expect(List<String> failures, String what, Outcome o, Status.Code code, String message) {
    check(failures, what + ": expected " + code + " '" + message + "', got " + o,
        o.status().getCode() == code && String.valueOf(o.status().getDescription()).contains(message)
            && TOKENS.stream().noneMatch(o.toString()::contains));
  }

  private static void check(List<String> failures, String what, boolean ok) {
    if (!ok) {
      failures.add(what);
    }
  }

  @Test
  void everyMessageOfAProduceStreamIsChecked() throws Exception {
    ClientCall<ProduceStreamRequest, Object> call = broker.channel().newCall(
        (MethodDescriptor<ProduceStreamRequest, Object>) (MethodDescriptor<?, ?>) ProduceServiceGrpc
            .getProduceStreamMethod(), CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS));
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, "Bearer " + ALICE);
    LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(Object message) {
        events.add(message);
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        events.add(status);
      }
    }, headers);
    call.request(10);
    call.sendMessage(ProduceStreamRequest.newBuilder().setCorrelationId(1).setRequest(produce("m-topic")).build());
    assertThat(events.poll(10, TimeUnit.SECONDS)).as("the first message is allowed")
        .isInstanceOf(io.brook.protocol.v1.ProduceStreamResponse.class);
    call.sendMessage(ProduceStreamRequest.newBuilder().setCorrelationId(2).setRequest(produce("m-doomed")).build());
    Object second = events.poll(10, TimeUnit.SECONDS);
    assertThat(second).isInstanceOf(Status.class);
    assertThat(((Status) second).getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(((Status) second).getDescription()).isEqualTo("principal alice lacks produce on topic m-doomed");
    Thread.sleep(200); // the service's late answer, if any, is dropped quietly
    assertThat(broker.currentStartLog()).as("no failure from the closed call").doesNotContain("Exception");
  }

  @Test
  void listsShowWhatThePrincipalHasAnyPermissionOn() throws Exception {
    Outcome alice = call(AdminServiceGrpc.getListTopicsMethod(), List.of(ListTopicsRequest.getDefaultInstance()), ALICE);
    assertThat(((ListTopicsResponse) alice.first()).getTopicsList()).extracting(t -> t.getName())
        .containsExactly("m-topic");
    Outcome root = call(AdminServiceGrpc.getListTopicsMethod(), List.of(ListTopicsRequest.getDefaultInstance()), ROOT);
    assertThat(((ListTopicsResponse) root.first()).getTopicsList()).extracting(t -> t.getName()).contains("m-topic")
        .hasSizeGreaterThan(1);
  }

  /**
   * Bytes that are not the request type reach the auth check as RequestGuard's marker: they must
   * be answered INVALID_ARGUMENT by the guard, not fail the check with a ClassCastException.
   */
  @Test
  void malformedRequestsWithAValidTokenAreInvalidArgument() throws Exception {
    MethodDescriptor.Marshaller<byte[]> bytes = new MethodDescriptor.Marshaller<>() {
      @Override
      public java.io.InputStream stream(byte[] value) {
        return new java.io.ByteArrayInputStream(value);
      }

      @Override
      public byte[] parse(java.io.InputStream stream) {
        try {
          return stream.readAllBytes();
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    };
    MethodDescriptor<?, ?> produce = MethodDescriptor.<byte[], byte[]>newBuilder(bytes, bytes)
        .setFullMethodName(ProduceServiceGrpc.getProduceMethod().getFullMethodName())
        .setType(MethodDescriptor.MethodType.UNARY).build();
    Outcome o = callRaw(produce, new byte[] {(byte) 0xff, 0x01, 0x02}, ROOT);
    assertThat(o.status().getCode()).as(o.toString()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(o.status().getDescription()).contains("not a valid brook.v1.ProduceRequest");
    assertThat(broker.currentStartLog()).doesNotContain("ClassCastException").doesNotContain("SEVERE");
  }

  @SuppressWarnings("unchecked")
  static Outcome callRaw(MethodDescriptor<?, ?> method, byte[] message, String token) throws Exception {
    ClientCall<byte[], Object> call = broker.channel().newCall((MethodDescriptor<byte[], Object>) method,
        CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS));
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, "Bearer " + token);
    CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onClose(Status status, Metadata trailers) {
        outcome.complete(new Outcome(status, null));
      }
    }, headers);
    call.request(1);
    call.sendMessage(message);
    call.halfClose();
    return outcome.get(20, TimeUnit.SECONDS);
  }

  /** A group's dead-letter topic is written to (and created) by the broker: naming one needs produce and admin on it. */
  @Test
  void aDeadLetterTopicNeedsProduceAndAdminOnIt() throws Exception {
    MethodDescriptor<?, ?> create = GroupServiceGrpc.getCreateGroupMethod();
    MethodDescriptor<?, ?> alter = GroupServiceGrpc.getAlterGroupConfigMethod();
    Outcome secret = call(create, List.of(CreateGroupRequest.newBuilder().setGroup("dl-g")
        .setMode(GroupMode.GROUP_MODE_ACK).putConfig("dead.letter.topic", "dl-secret").build()), DL);
    assertThat(secret.status().getCode()).as(secret.toString()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(secret.status().getDescription()).isEqualTo("principal dl lacks produce on topic dl-secret");
    Outcome granted = call(create, List.of(CreateGroupRequest.newBuilder().setGroup("dl-g")
        .setMode(GroupMode.GROUP_MODE_ACK).putConfig("dead.letter.topic", "dl-granted").build()), DL);
    assertThat(granted.status().getCode()).as(granted.toString()).isEqualTo(Status.Code.OK);
    Outcome mine = call(alter, List.of(AlterGroupConfigRequest.newBuilder().setGroup("dl-g")
        .putSet("dead.letter.topic", "dl-mine").build()), DL);
    assertThat(mine.status().getCode()).as(mine.toString()).isEqualTo(Status.Code.PERMISSION_DENIED);
    assertThat(mine.status().getDescription()).isEqualTo("principal dl lacks admin on topic dl-mine");
    Outcome other = call(alter, List.of(AlterGroupConfigRequest.newBuilder().setGroup("dl-g")
        .putSet("max.delivery.attempts", "3").build()), DL);
    assertThat(other.status().getCode()).as("other keys need admin on the group only: " + other)
        .isEqualTo(Status.Code.OK);
  }

  /** Acks, nacks and lease extensions name their topic: each needs consume on it, in Settle and in Receive. */
  @Test
  void settlingNeedsConsumeOnEveryTopicSettled() throws Exception {
    OffsetRange onB = OffsetRange.newBuilder().setTopic("s-b").setPartition(0).setFirstOffset(0).build();
    OffsetRange onA = onB.toBuilder().setTopic("s-a").build();
    List<SettleRequest> settles = List.of(
        SettleRequest.newBuilder().setGroup("s-g").setMemberId("m").addNacks(Nack.newBuilder().setRange(onB)
            .setReject(true)).build(),
        SettleRequest.newBuilder().setGroup("s-g").setMemberId("m").addAcks(onA).addAcks(onB).build(),
        SettleRequest.newBuilder().setGroup("s-g").setMemberId("m").addExtensions(LeaseExtension.newBuilder()
            .setRange(onB).setLeaseMs(1000)).build());
    for (SettleRequest settle : settles) {
      Outcome o = call(AckServiceGrpc.getSettleMethod(), List.of(settle), BOB);
      assertThat(o.status().getCode()).as(settle + " " + o).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(o.status().getDescription()).isEqualTo("principal bob lacks consume on topic s-b");
    }
    ReceiveRequest join = ReceiveRequest.newBuilder().setGroup("s-g").addTopics("s-a")
        .setFlowControl(FlowControl.newBuilder().setMaxOutstandingRecords(10)).build();
    for (ReceiveRequest later : List.of(ReceiveRequest.newBuilder().addAcks(onB).build(),
        ReceiveRequest.newBuilder().addNacks(Nack.newBuilder().setRange(onB).setReject(true)).build(),
        ReceiveRequest.newBuilder().addExtensions(LeaseExtension.newBuilder().setRange(onB)).build())) {
      Status status = receive(BOB, join, later);
      assertThat(status.getCode()).as(later + " " + status).isEqualTo(Status.Code.PERMISSION_DENIED);
      assertThat(status.getDescription()).isEqualTo("principal bob lacks consume on topic s-b");
    }
  }

  /** Sends {@code join}, waits for its first answer (the member id), sends {@code later}; the status the stream ends with. */
  @SuppressWarnings("unchecked")
  static Status receive(String token, ReceiveRequest join, ReceiveRequest later) throws Exception {
    ClientCall<ReceiveRequest, Object> call = broker.channel().newCall(
        (MethodDescriptor<ReceiveRequest, Object>) (MethodDescriptor<?, ?>) AckServiceGrpc.getReceiveMethod(),
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS));
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, "Bearer " + token);
    LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(Object message) {
        events.add(message);
        call.request(1);
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        events.add(status);
      }
    }, headers);
    call.request(1);
    call.sendMessage(join);
    Object first = events.poll(10, TimeUnit.SECONDS);
    assertThat(first).as("the join is allowed").isInstanceOf(io.brook.protocol.v1.ReceiveResponse.class);
    call.sendMessage(later);
    try {
      while (true) {
        Object e = events.poll(10, TimeUnit.SECONDS);
        if (e == null) {
          throw new AssertionError("the stream did not end after " + later);
        }
        if (e instanceof Status s) {
          return s;
        }
      }
    } finally {
      call.cancel("the test has its answer", null);
    }
  }

  @Test
  void healthNeedsNoCredentialsAndReflectionNeedsAPrincipal() throws Exception {
    assertThat(HealthGrpc.newBlockingStub(broker.channel()).check(HealthCheckRequest.getDefaultInstance())
        .getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    ServerReflectionRequest list = ServerReflectionRequest.newBuilder().setListServices("").build();
    assertThat(call(ServerReflectionGrpc.getServerReflectionInfoMethod(), List.of(list), null).status().getCode())
        .isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(call(ServerReflectionGrpc.getServerReflectionInfoMethod(), List.of(list), NOBODY).first())
        .as("any principal may list the services").isNotNull();
  }
}
