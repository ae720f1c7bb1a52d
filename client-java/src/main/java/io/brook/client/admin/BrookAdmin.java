package io.brook.client.admin;

import io.brook.client.Security;
import io.brook.client.errors.BrookException;
import io.brook.client.errors.BrookTimeoutException;
import io.brook.client.internal.Connection;
import io.brook.client.internal.ErrorMapping;
import io.brook.client.internal.Problems;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.AlterGroupConfigRequest;
import io.brook.protocol.v1.AlterTopicConfigRequest;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.CreatePartitionsRequest;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DeleteGroupRequest;
import io.brook.protocol.v1.DeleteTopicRequest;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.DescribeForwardRouteRequest;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.ForwardServiceGrpc;
import io.brook.protocol.v1.ListForwardRoutesRequest;
import io.brook.protocol.v1.PauseForwardRouteRequest;
import io.brook.protocol.v1.ResumeForwardRouteRequest;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.ListGroupsRequest;
import io.brook.protocol.v1.ListTopicsRequest;
import io.brook.protocol.v1.ResetGroupOffsetsRequest;
import io.grpc.ManagedChannel;
import io.grpc.stub.AbstractStub;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Creates, inspects, changes and deletes topics and groups; shows, pauses and resumes forward
 * routes. Every call is one request with a deadline: the {@code requestTimeout}, or the {@code
 * Duration} given as the call's last argument (past it the call throws {@code BrookTimeoutException} naming the call and the timeout). A call
 * fails with the typed exception of the broker's answer
 * ({@code TopicExistsException}, {@code UnknownTopicException}, {@code GroupNotEmptyException},
 * {@code InvalidRequestException}, {@code LimitExceededException}, ...; {@code
 * BrokerUnavailableException} while the broker is unreachable: the channel reconnects by itself,
 * so a later call succeeds once it is back). Calls are not retried: a create whose answer was lost
 * may have happened. Thread-safe.
 *
 * <p>Options ({@link #builder()}): {@code address} ({@code localhost:7070}) or a shared {@code
 * channel} (left open by {@link #close()}), {@code security} (TLS, token; own channel only), {@code
 * requestTimeout} (30 s).
 */
public final class BrookAdmin implements AutoCloseable {
  private final Connection connection;
  private final AdminServiceGrpc.AdminServiceBlockingStub topics;
  private final GroupServiceGrpc.GroupServiceBlockingStub groups;
  private final ForwardServiceGrpc.ForwardServiceBlockingStub forward;
  private final Duration requestTimeout;

  private BrookAdmin(Builder b) {
    connection = Connection.of(b.address, b.channel,
        b.security == null ? Security.plaintext() : b.security);
    topics = AdminServiceGrpc.newBlockingStub(connection.channel());
    groups = GroupServiceGrpc.newBlockingStub(connection.channel());
    forward = ForwardServiceGrpc.newBlockingStub(connection.channel());
    requestTimeout = b.requestTimeout;
  }

  /** The options of a new admin client. */
  public static Builder builder() {
    return new Builder();
  }

  /** An admin client for the broker at {@code host:port}, with the default options. */
  public static BrookAdmin create(String address) {
    return builder().broker(address).build();
  }

  // --- topics

  /** Fails with TopicExistsException, or InvalidRequestException (name, partition count, config). */
  public TopicInfo createTopic(NewTopic topic) {
    return createTopic(topic, requestTimeout);
  }

  /** {@link #createTopic(NewTopic)} with its own timeout. */
  public TopicInfo createTopic(NewTopic topic, Duration timeout) {
    return call("createTopic(" + topic.name() + ")", timeout, topics, s -> Descriptions.topic(s.createTopic(
        CreateTopicRequest.newBuilder().setName(topic.name()).setPartitions(topic.partitions())
            .putAllConfig(topic.config()).build()).getTopic()));
  }

  /** Every topic. */
  public List<TopicInfo> listTopics() {
    return listTopics(requestTimeout);
  }

  /** {@link #listTopics()} with its own timeout. */
  public List<TopicInfo> listTopics(Duration timeout) {
    return call("listTopics", timeout, topics, s -> s.listTopics(ListTopicsRequest.getDefaultInstance())
        .getTopicsList().stream().map(Descriptions::topic).toList());
  }

  /** Fails with UnknownTopicException. */
  public TopicInfo describeTopic(String name) {
    return describeTopic(name, requestTimeout);
  }

  /** {@link #describeTopic(String)} with its own timeout. */
  public TopicInfo describeTopic(String name, Duration timeout) {
    return call("describeTopic(" + name + ")", timeout, topics, s -> Descriptions.topic(s.describeTopic(
        DescribeTopicRequest.newBuilder().setName(name).build()).getTopic()));
  }

  /** Sets keys and removes keys (back to their defaults); answers the topic as it is now. */
  public TopicInfo alterTopicConfig(String name, Map<String, String> set, Collection<String> remove) {
    return alterTopicConfig(name, set, remove, requestTimeout);
  }

  /** {@link #alterTopicConfig(String, Map, Collection)} with its own timeout. */
  public TopicInfo alterTopicConfig(String name, Map<String, String> set, Collection<String> remove,
      Duration timeout) {
    return call("alterTopicConfig(" + name + ")", timeout, topics, s -> Descriptions.topic(s.alterTopicConfig(
        AlterTopicConfigRequest.newBuilder().setName(name).putAllSet(set).addAllRemove(remove).build()).getTopic()));
  }

  /** Grows the topic to {@code totalPartitions} (never shrinks: InvalidRequestException). */
  public TopicInfo createPartitions(String name, int totalPartitions) {
    return createPartitions(name, totalPartitions, requestTimeout);
  }

  /** {@link #createPartitions(String, int)} with its own timeout. */
  public TopicInfo createPartitions(String name, int totalPartitions, Duration timeout) {
    return call("createPartitions(" + name + ")", timeout, topics, s -> Descriptions.topic(s.createPartitions(
        CreatePartitionsRequest.newBuilder().setName(name).setTotalPartitions(totalPartitions).build()).getTopic()));
  }

  /** Deletes the topic and its records; created again, it starts at offset 0. */
  public void deleteTopic(String name) {
    deleteTopic(name, requestTimeout);
  }

  /** {@link #deleteTopic(String)} with its own timeout. */
  public void deleteTopic(String name, Duration timeout) {
    call("deleteTopic(" + name + ")", timeout, topics,
        s -> s.deleteTopic(DeleteTopicRequest.newBuilder().setName(name).build()));
  }

  // --- groups

  /** Fails with GroupExistsException, or InvalidRequestException (name, config). */
  public GroupInfo createGroup(NewGroup group) {
    return createGroup(group, requestTimeout);
  }

  /** {@link #createGroup(NewGroup)} with its own timeout. */
  public GroupInfo createGroup(NewGroup group, Duration timeout) {
    return call("createGroup(" + group.name() + ")", timeout, groups, s -> Descriptions.group(s.createGroup(
        CreateGroupRequest.newBuilder().setGroup(group.name()).setMode(Descriptions.mode(group.mode()))
            .putAllConfig(group.config()).build()).getGroup()));
  }

  /** Every group. */
  public List<GroupListing> listGroups() {
    return listGroups(requestTimeout);
  }

  /** {@link #listGroups()} with its own timeout. */
  public List<GroupListing> listGroups(Duration timeout) {
    return call("listGroups", timeout, groups, s -> s.listGroups(ListGroupsRequest.getDefaultInstance())
        .getGroupsList().stream().map(Descriptions::listing).toList());
  }

  /** Fails with UnknownGroupException. */
  public GroupInfo describeGroup(String name) {
    return describeGroup(name, requestTimeout);
  }

  /** {@link #describeGroup(String)} with its own timeout. */
  public GroupInfo describeGroup(String name, Duration timeout) {
    return call("describeGroup(" + name + ")", timeout, groups, s -> Descriptions.group(s.describeGroup(
        DescribeGroupRequest.newBuilder().setGroup(name).build()).getGroup()));
  }

  /** Sets keys and removes keys (back to their defaults); answers the group as it is now. */
  public GroupInfo alterGroupConfig(String name, Map<String, String> set, Collection<String> remove) {
    return alterGroupConfig(name, set, remove, requestTimeout);
  }

  /** {@link #alterGroupConfig(String, Map, Collection)} with its own timeout. */
  public GroupInfo alterGroupConfig(String name, Map<String, String> set, Collection<String> remove,
      Duration timeout) {
    return call("alterGroupConfig(" + name + ")", timeout, groups, s -> Descriptions.group(s.alterGroupConfig(
        AlterGroupConfigRequest.newBuilder().setGroup(name).putAllSet(set).addAllRemove(remove).build()).getGroup()));
  }

  /** Everything the group committed (an unknown group has none). */
  public List<GroupOffset> listGroupOffsets(String group) {
    return listGroupOffsets(group, requestTimeout);
  }

  /** {@link #listGroupOffsets(String)} with its own timeout. */
  public List<GroupOffset> listGroupOffsets(String group, Duration timeout) {
    return call("listGroupOffsets(" + group + ")", timeout, groups, s -> Descriptions.offsets(
        s.fetchCommittedOffsets(FetchCommittedOffsetsRequest.newBuilder().setGroup(group).build()).getOffsetsList()));
  }

  /**
   * Moves the group's committed offsets (only while it has no members: GroupNotEmptyException).
   * {@code partitions}: topic → partitions, an empty list meaning all of the topic's; an empty map
   * means every partition the group has. With {@code dryRun} nothing changes and the answer says
   * what would be committed. Per-partition errors are in {@link GroupOffset#error()}.
   */
  public List<GroupOffset> resetGroupOffsets(String group, OffsetPosition position,
      Map<String, List<Integer>> partitions, boolean dryRun) {
    return resetGroupOffsets(group, position, partitions, dryRun, requestTimeout);
  }

  /** {@link #resetGroupOffsets(String, OffsetPosition, Map, boolean)} with its own timeout. */
  public List<GroupOffset> resetGroupOffsets(String group, OffsetPosition position,
      Map<String, List<Integer>> partitions, boolean dryRun, Duration timeout) {
    return call("resetGroupOffsets(" + group + ")", timeout, groups, s -> Descriptions.offsets(s.resetGroupOffsets(
        ResetGroupOffsetsRequest.newBuilder().setGroup(group).addAllPartitions(Descriptions.selection(partitions))
            .setPosition(Descriptions.position(position)).setDryRun(dryRun).build()).getOffsetsList()));
  }

  /** Every partition the group has. */
  public List<GroupOffset> resetGroupOffsets(String group, OffsetPosition position, boolean dryRun) {
    return resetGroupOffsets(group, position, Map.of(), dryRun, requestTimeout);
  }

  /** {@link #resetGroupOffsets(String, OffsetPosition, boolean)} with its own timeout. */
  public List<GroupOffset> resetGroupOffsets(String group, OffsetPosition position, boolean dryRun,
      Duration timeout) {
    return resetGroupOffsets(group, position, Map.of(), dryRun, timeout);
  }

  /** Deletes the group and its offsets (only while it has no members: GroupNotEmptyException). */
  public void deleteGroup(String name) {
    deleteGroup(name, requestTimeout);
  }

  /** {@link #deleteGroup(String)} with its own timeout. */
  public void deleteGroup(String name, Duration timeout) {
    call("deleteGroup(" + name + ")", timeout, groups,
        s -> s.deleteGroup(DeleteGroupRequest.newBuilder().setGroup(name).build()));
  }

  // --- forward routes (defined in the broker's config file; D68, D71)

  /** The routes whose source this client may see (any permission on it), in config order, without cursors. */
  public List<ForwardRouteInfo> listForwardRoutes() {
    return listForwardRoutes(requestTimeout);
  }

  /** {@link #listForwardRoutes()} with its own timeout. */
  public List<ForwardRouteInfo> listForwardRoutes(Duration timeout) {
    return call("listForwardRoutes", timeout, forward, s -> s.listForwardRoutes(
        ListForwardRoutesRequest.getDefaultInstance()).getRoutesList().stream().map(Descriptions::forwardRoute).toList());
  }

  /** One route with its cursors; InvalidRequestException for an unknown route (naming the known ones). */
  public ForwardRouteInfo describeForwardRoute(String route) {
    return describeForwardRoute(route, requestTimeout);
  }

  /** {@link #describeForwardRoute(String)} with its own timeout. */
  public ForwardRouteInfo describeForwardRoute(String route, Duration timeout) {
    return call("describeForwardRoute(" + route + ")", timeout, forward, s -> Descriptions.forwardRoute(
        s.describeForwardRoute(DescribeForwardRouteRequest.newBuilder().setRoute(route).build()).getRoute()));
  }

  /**
   * Stops forwarding on the route, durably (a restart keeps it paused); needs admin on the route's source.
   * Answers the route as it is now.
   */
  public ForwardRouteInfo pauseForwardRoute(String route) {
    return pauseForwardRoute(route, requestTimeout);
  }

  /** {@link #pauseForwardRoute(String)} with its own timeout. */
  public ForwardRouteInfo pauseForwardRoute(String route, Duration timeout) {
    return call("pauseForwardRoute(" + route + ")", timeout, forward, s -> Descriptions.forwardRoute(
        s.pauseForwardRoute(PauseForwardRouteRequest.newBuilder().setRoute(route).build()).getRoute()));
  }

  /** Forwards again from the route's cursor, durably; needs admin on the route's source. */
  public ForwardRouteInfo resumeForwardRoute(String route) {
    return resumeForwardRoute(route, requestTimeout);
  }

  /** {@link #resumeForwardRoute(String)} with its own timeout. */
  public ForwardRouteInfo resumeForwardRoute(String route, Duration timeout) {
    return call("resumeForwardRoute(" + route + ")", timeout, forward, s -> Descriptions.forwardRoute(
        s.resumeForwardRoute(ResumeForwardRouteRequest.newBuilder().setRoute(route).build()).getRoute()));
  }

  @Override
  public void close() {
    connection.close();
  }

  // --- internals

  /**
   * One request on {@code stub} with {@code timeout} as its deadline; failures as typed exceptions,
   * a missed deadline as a BrookTimeoutException that names the call and its timeout.
   */
  private static <S extends AbstractStub<S>, T> T call(String what, Duration timeout, S stub, Function<S, T> rpc) {
    long ms = timeoutMillis(what, timeout);
    try {
      return rpc.apply(stub.withDeadlineAfter(ms, TimeUnit.MILLISECONDS));
    } catch (RuntimeException e) {
      BrookException b = ErrorMapping.fromThrowable(e);
      if (b instanceof BrookTimeoutException) {
        throw new BrookTimeoutException(b.reason(), what + " did not finish within its timeout of " + ms
            + " ms (" + b.getMessage() + ")", e);
      }
      throw b;
    }
  }

  /** The timeout in ms, as gRPC takes it; a missing or shorter than 1 ms one is the caller's mistake. */
  private static long timeoutMillis(String what, Duration timeout) {
    if (timeout == null || timeout.compareTo(Duration.ofMillis(1)) < 0) {
      throw new IllegalArgumentException("the timeout of " + what + " must be >= 1 ms, got " + timeout);
    }
    try {
      return timeout.toMillis();
    } catch (ArithmeticException beyondLong) {
      return Long.MAX_VALUE; // gRPC caps deadlines far out anyway
    }
  }

  /** The admin client's options; {@link #build()} checks them all at once. */
  public static final class Builder {
    private String address = "localhost:7070";
    private ManagedChannel channel;
    private Security security;
    private Duration requestTimeout = Duration.ofSeconds(30);

    private Builder() {}

    /** The broker, {@code host:port} (default localhost:7070). */
    public Builder broker(String address) {
      this.address = address;
      return this;
    }

    /** A channel shared with other clients, instead of the address; close() leaves it open. */
    public Builder channel(ManagedChannel channel) {
      this.channel = channel;
      return this;
    }

    /**
     * TLS, a client certificate and/or a bearer token ({@link Security}); default
     * plaintext without credentials. Not with a shared {@code channel}, which brings its own.
     */
    public Builder security(Security security) {
      this.security = security;
      return this;
    }

    /** The deadline of each call (default 30 s). */
    public Builder requestTimeout(Duration timeout) {
      this.requestTimeout = timeout;
      return this;
    }

    /**
     * The admin client (its channel connects at the first call).
     *
     * @throws io.brook.client.errors.ConfigException naming every invalid option
     */
    public BrookAdmin build() {
      Problems p = new Problems("admin");
      p.broker(address, channel);
      p.security(security, channel);
      p.check(requestTimeout != null && requestTimeout.toMillis() >= 1, "requestTimeout", "must be >= 1 ms",
          requestTimeout);
      p.throwIfAny();
      return new BrookAdmin(this);
    }
  }
}
