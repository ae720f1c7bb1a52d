package io.brook.client.admin;

import io.brook.client.Security;
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
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.ListGroupsRequest;
import io.brook.protocol.v1.ListTopicsRequest;
import io.brook.protocol.v1.ResetGroupOffsetsRequest;
import io.grpc.ManagedChannel;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Creates, inspects, changes and deletes topics and groups. Every call is one request with the
 * {@code requestTimeout} as its deadline, and fails with the typed exception of the broker's answer
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
  private final long timeoutMs;

  private BrookAdmin(Builder b) {
    connection = Connection.of(b.address, b.channel,
        b.security == null ? Security.plaintext() : b.security);
    topics = AdminServiceGrpc.newBlockingStub(connection.channel());
    groups = GroupServiceGrpc.newBlockingStub(connection.channel());
    timeoutMs = b.requestTimeout.toMillis();
  }

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
    return call(() -> Descriptions.topic(topics().createTopic(CreateTopicRequest.newBuilder().setName(topic.name())
        .setPartitions(topic.partitions()).putAllConfig(topic.config()).build()).getTopic()));
  }

  public List<TopicInfo> listTopics() {
    return call(() -> topics().listTopics(ListTopicsRequest.getDefaultInstance()).getTopicsList().stream()
        .map(Descriptions::topic).toList());
  }

  /** Fails with UnknownTopicException. */
  public TopicInfo describeTopic(String name) {
    return call(() -> Descriptions.topic(topics().describeTopic(DescribeTopicRequest.newBuilder().setName(name)
        .build()).getTopic()));
  }

  /** Sets keys and removes keys (back to their defaults); answers the topic as it is now. */
  public TopicInfo alterTopicConfig(String name, Map<String, String> set, Collection<String> remove) {
    return call(() -> Descriptions.topic(topics().alterTopicConfig(AlterTopicConfigRequest.newBuilder().setName(name)
        .putAllSet(set).addAllRemove(remove).build()).getTopic()));
  }

  /** Grows the topic to {@code totalPartitions} (never shrinks: InvalidRequestException). */
  public TopicInfo createPartitions(String name, int totalPartitions) {
    return call(() -> Descriptions.topic(topics().createPartitions(CreatePartitionsRequest.newBuilder().setName(name)
        .setTotalPartitions(totalPartitions).build()).getTopic()));
  }

  /** Deletes the topic and its records; created again, it starts at offset 0. */
  public void deleteTopic(String name) {
    call(() -> topics().deleteTopic(DeleteTopicRequest.newBuilder().setName(name).build()));
  }

  // --- groups

  /** Fails with GroupExistsException, or InvalidRequestException (name, config). */
  public GroupInfo createGroup(NewGroup group) {
    return call(() -> Descriptions.group(groups().createGroup(CreateGroupRequest.newBuilder().setGroup(group.name())
        .setMode(Descriptions.mode(group.mode())).putAllConfig(group.config()).build()).getGroup()));
  }

  public List<GroupListing> listGroups() {
    return call(() -> groups().listGroups(ListGroupsRequest.getDefaultInstance()).getGroupsList().stream()
        .map(Descriptions::listing).toList());
  }

  /** Fails with UnknownGroupException. */
  public GroupInfo describeGroup(String name) {
    return call(() -> Descriptions.group(groups().describeGroup(DescribeGroupRequest.newBuilder().setGroup(name)
        .build()).getGroup()));
  }

  public GroupInfo alterGroupConfig(String name, Map<String, String> set, Collection<String> remove) {
    return call(() -> Descriptions.group(groups().alterGroupConfig(AlterGroupConfigRequest.newBuilder().setGroup(name)
        .putAllSet(set).addAllRemove(remove).build()).getGroup()));
  }

  /** Everything the group committed (an unknown group has none). */
  public List<GroupOffset> listGroupOffsets(String group) {
    return call(() -> Descriptions.offsets(groups().fetchCommittedOffsets(FetchCommittedOffsetsRequest.newBuilder()
        .setGroup(group).build()).getOffsetsList()));
  }

  /**
   * Moves the group's committed offsets (only while it has no members: GroupNotEmptyException).
   * {@code partitions}: topic → partitions, an empty list meaning all of the topic's; an empty map
   * means every partition the group has. With {@code dryRun} nothing changes and the answer says
   * what would be committed. Per-partition errors are in {@link GroupOffset#error()}.
   */
  public List<GroupOffset> resetGroupOffsets(String group, OffsetPosition position,
      Map<String, List<Integer>> partitions, boolean dryRun) {
    return call(() -> Descriptions.offsets(groups().resetGroupOffsets(ResetGroupOffsetsRequest.newBuilder()
        .setGroup(group).addAllPartitions(Descriptions.selection(partitions)).setPosition(Descriptions.position(position))
        .setDryRun(dryRun).build()).getOffsetsList()));
  }

  /** Every partition the group has. */
  public List<GroupOffset> resetGroupOffsets(String group, OffsetPosition position, boolean dryRun) {
    return resetGroupOffsets(group, position, Map.of(), dryRun);
  }

  /** Deletes the group and its offsets (only while it has no members: GroupNotEmptyException). */
  public void deleteGroup(String name) {
    call(() -> groups().deleteGroup(DeleteGroupRequest.newBuilder().setGroup(name).build()));
  }

  @Override
  public void close() {
    connection.close();
  }

  // --- internals

  private AdminServiceGrpc.AdminServiceBlockingStub topics() {
    return topics.withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS);
  }

  private GroupServiceGrpc.GroupServiceBlockingStub groups() {
    return groups.withDeadlineAfter(timeoutMs, TimeUnit.MILLISECONDS);
  }

  private static <T> T call(Supplier<T> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      throw ErrorMapping.fromThrowable(e);
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
