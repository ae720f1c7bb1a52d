package io.brook.broker.kafka.apis;

import io.brook.broker.core.ConsumerGroupService;
import io.brook.broker.groups.consumer.ConsumerGroupDescription;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ConsumerGroupDescribe: KIP-848 groups with their epochs, assignor and each member's assignment and
 * target. Any other group (classic, offsets only, gRPC, ack) and an unknown one get GROUP_ID_NOT_FOUND,
 * as Kafka answers: Kafka's Admin then describes it with DescribeGroups, so kafka-consumer-groups
 * --describe works for every kind. Members' partitions are shown only on topics the caller may see.
 */
public final class ConsumerGroupDescribeApi implements KafkaApi {
  /** v1's MemberType: a member that joined with JoinGroup (classic) or ConsumerGroupHeartbeat. */
  private static final byte CLASSIC_MEMBER = 0;
  private static final byte CONSUMER_MEMBER = 1;
  private final ConsumerGroupService groups;

  public ConsumerGroupDescribeApi(ConsumerGroupService groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.CONSUMER_GROUP_DESCRIBE;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 1;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    ConsumerGroupDescribeRequestData body = (ConsumerGroupDescribeRequestData) request.body();
    KafkaCaller caller = request.caller();
    ConsumerGroupDescribeResponseData response = new ConsumerGroupDescribeResponseData().setThrottleTimeMs(0);
    for (String id : body.groupIds()) {
      response.groups().add(describe(id, caller, body.includeAuthorizedOperations()));
    }
    return CompletableFuture.completedFuture(response);
  }

  private DescribedGroup describe(String id, KafkaCaller caller, boolean withOperations) {
    DescribedGroup out = new DescribedGroup().setGroupId(id);
    if (id.isEmpty()) {
      return out.setErrorCode(Errors.INVALID_GROUP_ID.code()).setErrorMessage("the group id is empty");
    }
    boolean consume = caller.consumeGroup(id);
    boolean admin = caller.adminGroup(id);
    if (!consume && !admin) {
      return out.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())
          .setErrorMessage("not allowed to describe group '" + id + "'");
    }
    Optional<ConsumerGroupDescription> found;
    try {
      found = groups.describe(id);
    } catch (RuntimeException e) {
      KafkaErrors.Failure f = GroupErrors.of(e).invalidRequestAs(Errors.INVALID_GROUP_ID);
      return out.setErrorCode(f.code()).setErrorMessage(f.message());
    }
    if (found.isEmpty()) {
      return out.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
          .setErrorMessage("group '" + id + "' is not a consumer group (group.protocol=consumer)");
    }
    ConsumerGroupDescription g = found.get();
    Predicate<String> visible = caller.visibleTopics();
    out.setErrorCode(Errors.NONE.code()).setGroupState(g.state()).setGroupEpoch(g.groupEpoch())
        .setAssignmentEpoch(g.assignmentEpoch()).setAssignorName(g.assignor());
    for (ConsumerGroupDescription.Member m : g.members()) {
      out.members().add(new ConsumerGroupDescribeResponseData.Member().setMemberId(m.memberId())
          .setInstanceId(m.instanceId()).setRackId(m.rackId()).setMemberEpoch(m.memberEpoch())
          .setClientId(m.clientId()).setClientHost(m.clientHost())
          .setSubscribedTopicNames(m.subscribedTopicNames().stream().filter(visible).toList())
          .setSubscribedTopicRegex(m.subscribedTopicRegex() == null ? "" : m.subscribedTopicRegex()) // "" as Kafka
          .setAssignment(assignment(m.assignment(), visible)).setTargetAssignment(assignment(m.target(), visible))
          .setMemberType(m.classic() ? CLASSIC_MEMBER : CONSUMER_MEMBER));
    }
    if (withOperations) {
      out.setAuthorizedOperations(operations(consume, admin));
    }
    return out;
  }

  private static ConsumerGroupDescribeResponseData.Assignment assignment(List<ConsumerGroupDescription.Topic> topics,
      Predicate<String> visible) {
    return new ConsumerGroupDescribeResponseData.Assignment().setTopicPartitions(topics.stream()
        .filter(t -> visible.test(t.name()))
        .map(t -> new ConsumerGroupDescribeResponseData.TopicPartitions()
            .setTopicId(new Uuid(t.topicId().getMostSignificantBits(), t.topicId().getLeastSignificantBits()))
            .setTopicName(t.name()).setPartitions(t.partitions())).toList());
  }

  /** Kafka's bit field of what the caller may do with the group: read (consume), describe, delete (admin). */
  private static int operations(boolean consume, boolean admin) {
    int ops = 1 << AclOperation.DESCRIBE.code();
    if (consume) {
      ops |= 1 << AclOperation.READ.code();
    }
    if (admin) {
      ops |= 1 << AclOperation.DELETE.code();
    }
    return ops;
  }
}
