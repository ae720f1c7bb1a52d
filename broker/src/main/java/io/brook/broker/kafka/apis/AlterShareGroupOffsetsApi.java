package io.brook.broker.kafka.apis;

import io.brook.broker.core.ShareGroupAdmin;
import io.brook.broker.core.TopicAdmin;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.TopicPartition;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestPartition;
import org.apache.kafka.common.message.AlterShareGroupOffsetsRequestData.AlterShareGroupOffsetsRequestTopic;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponsePartition;
import org.apache.kafka.common.message.AlterShareGroupOffsetsResponseData.AlterShareGroupOffsetsResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * AlterShareGroupOffsets (Admin.alterShareGroupOffsets, kafka-share-groups --reset-offsets --execute):
 * moves the ack group's window starts (D67). As in Kafka, only while the group has no member
 * (NON_EMPTY_GROUP, nothing moves), and an absent group is created (an ack group); per partition an
 * unknown topic or partition is UNKNOWN_TOPIC_OR_PARTITION and, where Kafka takes any offset, an
 * offset outside the log OFFSET_OUT_OF_RANGE. Needs admin on the group and consume or admin on each
 * topic, as a reset does.
 */
public final class AlterShareGroupOffsetsApi implements KafkaApi {
  private final ShareGroupAdmin groups;
  private final TopicAdmin topics;

  public AlterShareGroupOffsetsApi(ShareGroupAdmin groups, TopicAdmin topics) {
    this.groups = groups;
    this.topics = topics;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.ALTER_SHARE_GROUP_OFFSETS;
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
    AlterShareGroupOffsetsRequestData body = (AlterShareGroupOffsetsRequestData) request.body();
    KafkaCaller caller = request.caller();
    String group = body.groupId();
    AlterShareGroupOffsetsResponseData response = new AlterShareGroupOffsetsResponseData().setThrottleTimeMs(0);
    if (group.isEmpty()) {
      return done(failed(response, ShareGroupErrors.emptyId()));
    }
    if (!caller.adminGroup(group)) {
      return done(failed(response, GroupErrors.notAuthorized(group)));
    }
    Map<TopicPartition, Long> starts = new LinkedHashMap<>();
    Map<TopicPartition, AlterShareGroupOffsetsResponsePartition> answers = new LinkedHashMap<>();
    for (AlterShareGroupOffsetsRequestTopic t : body.topics()) {
      UUID id = topics.idOf(t.topicName());
      AlterShareGroupOffsetsResponseTopic topic = new AlterShareGroupOffsetsResponseTopic().setTopicName(t.topicName())
          .setTopicId(id == null ? Uuid.ZERO_UUID : TopicIds.toKafka(id));
      response.responses().add(topic);
      boolean mayTouch = caller.consume(t.topicName()) || caller.adminTopic(t.topicName());
      for (AlterShareGroupOffsetsRequestPartition p : t.partitions()) {
        AlterShareGroupOffsetsResponsePartition part = new AlterShareGroupOffsetsResponsePartition()
            .setPartitionIndex(p.partitionIndex()).setErrorCode(Errors.NONE.code());
        topic.partitions().add(part);
        if (!mayTouch) {
          part.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
              .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message());
          continue;
        }
        TopicPartition tp = new TopicPartition(t.topicName(), p.partitionIndex());
        starts.put(tp, p.startOffset());
        answers.put(tp, part);
      }
    }
    Map<TopicPartition, BrokerException> refused;
    try {
      refused = groups.alter(group, starts);
    } catch (RuntimeException e) {
      response.responses().clear();
      return done(failed(response, ShareGroupErrors.of(group, e)));
    }
    refused.forEach((tp, e) -> {
      Failure f = GroupErrors.of(e);
      answers.get(tp).setErrorCode(f.code()).setErrorMessage(f.message());
    });
    return done(response.setErrorCode(Errors.NONE.code()));
  }

  private static AlterShareGroupOffsetsResponseData failed(AlterShareGroupOffsetsResponseData r, Failure f) {
    return r.setErrorCode(f.code()).setErrorMessage(f.message());
  }

  private static CompletableFuture<ApiMessage> done(AlterShareGroupOffsetsResponseData r) {
    return CompletableFuture.completedFuture(r);
  }
}
