package io.brook.broker.kafka.apis;

import io.brook.broker.core.ShareGroupAdmin;
import io.brook.broker.core.TopicAdmin;
import io.brook.broker.core.TopicInfo;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.GroupView;
import io.brook.broker.groups.TopicPartition;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData.Assignment;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData.Member;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData.TopicPartitions;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ShareGroupDescribe (kafka-share-groups --describe --members/--state, Admin.describeShareGroups): an
 * ack group as a share group (D67). Its connected members are its share members, each assigned every
 * partition of every topic it receives from (Brook's dispatch shares the records out); a member
 * between streams holds leases but is not in the group to Kafka, as the group's state ("Empty") says.
 * The epochs are the group's generation; the assignor is Kafka's only share assignor, "simple".
 */
public final class ShareGroupDescribeApi implements KafkaApi {
  /** The name Kafka's share groups report for their (only) assignor. */
  static final String ASSIGNOR = "simple";
  private final ShareGroupAdmin groups;
  private final TopicAdmin topics;

  public ShareGroupDescribeApi(ShareGroupAdmin groups, TopicAdmin topics) {
    this.groups = groups;
    this.topics = topics;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.SHARE_GROUP_DESCRIBE;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short maxVersion() {
    return 1;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    ShareGroupDescribeRequestData body = (ShareGroupDescribeRequestData) request.body();
    ShareGroupDescribeResponseData response = new ShareGroupDescribeResponseData().setThrottleTimeMs(0);
    for (String id : body.groupIds()) {
      response.groups().add(describe(id, request.caller(), body.includeAuthorizedOperations()));
    }
    return CompletableFuture.completedFuture(response);
  }

  private DescribedGroup describe(String id, KafkaCaller caller, boolean withOperations) {
    DescribedGroup out = new DescribedGroup().setGroupId(id);
    if (id.isEmpty()) {
      return failed(out, ShareGroupErrors.emptyId());
    }
    boolean consume = caller.consumeGroup(id);
    boolean admin = caller.adminGroup(id);
    if (!consume && !admin) {
      return failed(out, GroupErrors.notAuthorized(id));
    }
    GroupView g;
    try {
      g = groups.describe(id, caller.visibleTopics());
    } catch (RuntimeException e) {
      return failed(out, ShareGroupErrors.of(id, e));
    }
    out.setErrorCode(Errors.NONE.code()).setGroupState(g.kafkaState()).setGroupEpoch(g.generation())
        .setAssignmentEpoch(g.generation()).setAssignorName(ASSIGNOR);
    for (GroupView.Member m : g.members()) {
      if (!m.connected()) {
        continue;
      }
      List<String> subscribed = m.assignment().stream().map(TopicPartition::topic).distinct().toList();
      out.members().add(new Member().setMemberId(m.memberId()).setMemberEpoch(g.generation())
          .setClientId(m.clientId()).setClientHost(m.address()).setSubscribedTopicNames(subscribed)
          .setAssignment(new Assignment().setTopicPartitions(everyPartition(subscribed))));
    }
    if (withOperations) {
      out.setAuthorizedOperations(ShareGroupErrors.operations(consume, admin));
    }
    return out;
  }

  /** Every partition of each topic (one deleted meanwhile is left out). */
  private List<TopicPartitions> everyPartition(List<String> names) {
    List<TopicPartitions> out = new ArrayList<>();
    for (String name : names) {
      TopicInfo t;
      try {
        t = topics.describe(name);
      } catch (BrokerException e) {
        continue;
      }
      out.add(new TopicPartitions().setTopicId(TopicIds.toKafka(t.id())).setTopicName(name)
          .setPartitions(t.partitions().stream().map(TopicInfo.PartitionInfo::partition).toList()));
    }
    return out;
  }

  private static DescribedGroup failed(DescribedGroup out, Failure f) {
    return out.setErrorCode(f.code()).setErrorMessage(f.message());
  }
}
