package io.brook.broker.kafka.apis;

import io.brook.broker.core.GroupService;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.MemberFaultException;
import io.brook.broker.groups.OffsetDeletion;
import io.brook.broker.groups.TopicPartition;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartitionCollection;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopic;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopicCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetDelete (kafka-consumer-groups --delete-offsets): forgets committed offsets of a group. Refused
 * for the whole group while gRPC members are in (NON_EMPTY_GROUP), per partition for a topic a
 * Kafka member subscribes to (GROUP_SUBSCRIBED_TO_TOPIC). Needs admin on the group and a consume or
 * admin permission on each topic, as a reset does.
 */
public final class OffsetDeleteApi implements KafkaApi {
  private final GroupService groups;

  public OffsetDeleteApi(GroupService groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.OFFSET_DELETE;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 0;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    OffsetDeleteRequestData body = (OffsetDeleteRequestData) request.body();
    KafkaCaller caller = request.caller();
    String group = body.groupId();
    OffsetDeleteResponseData response = new OffsetDeleteResponseData().setThrottleTimeMs(0);
    if (group.isEmpty()) {
      return CompletableFuture.completedFuture(response.setErrorCode(Errors.INVALID_GROUP_ID.code()));
    }
    if (!caller.adminGroup(group)) {
      return CompletableFuture.completedFuture(response.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
    }
    OffsetDeleteResponseTopicCollection topics = new OffsetDeleteResponseTopicCollection();
    Map<TopicPartition, OffsetDeleteResponsePartition> asked = new HashMap<>();
    List<TopicPartition> allowed = new ArrayList<>();
    for (OffsetDeleteRequestTopic t : body.topics()) {
      OffsetDeleteResponseTopic topic = new OffsetDeleteResponseTopic().setName(t.name())
          .setPartitions(new OffsetDeleteResponsePartitionCollection());
      topics.add(topic);
      boolean mayTouch = caller.consume(t.name()) || caller.adminTopic(t.name());
      for (OffsetDeleteRequestPartition p : t.partitions()) {
        OffsetDeleteResponsePartition part = new OffsetDeleteResponsePartition().setPartitionIndex(p.partitionIndex())
            .setErrorCode(mayTouch ? Errors.NONE.code() : Errors.TOPIC_AUTHORIZATION_FAILED.code());
        if (topic.partitions().find(p.partitionIndex()) == null) {
          topic.partitions().add(part);
        }
        if (mayTouch) {
          TopicPartition tp = new TopicPartition(t.name(), p.partitionIndex());
          asked.put(tp, topic.partitions().find(p.partitionIndex()));
          allowed.add(tp);
        }
      }
    }
    try {
      for (OffsetDeletion d : groups.deleteOffsets(group, allowed)) {
        if (d.error() != null) {
          asked.get(d.tp()).setErrorCode(GroupErrors.of(d.error()).code());
        }
      }
    } catch (BrokerException | MemberFaultException e) {
      Errors code = e instanceof BrokerException b && b.error() == BrokerError.INCONSISTENT_GROUP_MODE
          ? Errors.GROUP_ID_NOT_FOUND // an ack group has no consumer offsets to delete, as Kafka's share groups
          : GroupErrors.of(e).invalidRequestAs(Errors.INVALID_GROUP_ID).error();
      return CompletableFuture.completedFuture(response.setErrorCode(code.code()));
    }
    return CompletableFuture.completedFuture(response.setErrorCode(Errors.NONE.code()).setTopics(topics));
  }
}
