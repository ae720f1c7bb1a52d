package io.brook.broker.kafka.apis;

import io.brook.broker.core.ShareGroupAdmin;
import io.brook.broker.core.TopicAdmin;
import io.brook.broker.groups.ShareOffsets.Refusal;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsRequestData.DeleteShareGroupOffsetsRequestTopic;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DeleteShareGroupOffsetsResponseData.DeleteShareGroupOffsetsResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DeleteShareGroupOffsets (Admin.deleteShareGroupOffsets, kafka-share-groups --delete-offsets): the
 * ack group forgets its windows on each topic, so a member subscribing again starts where
 * auto.offset.reset says (D67). As in Kafka: only while the group has no member (NON_EMPTY_GROUP);
 * per topic an unknown one, or one the group has no offsets on, is UNKNOWN_TOPIC_OR_PARTITION (the
 * latter with Kafka's "There is no offset information to delete."). Needs admin on the group and
 * consume or admin on each topic.
 */
public final class DeleteShareGroupOffsetsApi implements KafkaApi {
  /** Kafka 4.3.1's message for a topic the share group has no offsets on. */
  static final String NO_OFFSETS = "There is no offset information to delete.";
  private final ShareGroupAdmin groups;
  private final TopicAdmin topics;

  public DeleteShareGroupOffsetsApi(ShareGroupAdmin groups, TopicAdmin topics) {
    this.groups = groups;
    this.topics = topics;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.DELETE_SHARE_GROUP_OFFSETS;
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
    DeleteShareGroupOffsetsRequestData body = (DeleteShareGroupOffsetsRequestData) request.body();
    KafkaCaller caller = request.caller();
    String group = body.groupId();
    DeleteShareGroupOffsetsResponseData response = new DeleteShareGroupOffsetsResponseData().setThrottleTimeMs(0);
    if (group.isEmpty()) {
      return done(failed(response, ShareGroupErrors.emptyId()));
    }
    if (!caller.adminGroup(group)) {
      return done(failed(response, GroupErrors.notAuthorized(group)));
    }
    List<String> allowed = new ArrayList<>();
    List<DeleteShareGroupOffsetsResponseTopic> denied = new ArrayList<>();
    for (DeleteShareGroupOffsetsRequestTopic t : body.topics()) {
      if (caller.consume(t.topicName()) || caller.adminTopic(t.topicName())) {
        allowed.add(t.topicName());
      } else {
        denied.add(row(t.topicName()).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
            .setErrorMessage(Errors.TOPIC_AUTHORIZATION_FAILED.message()));
      }
    }
    Map<String, Refusal> outcomes;
    try {
      outcomes = groups.deleteOffsets(group, allowed);
    } catch (RuntimeException e) {
      return done(failed(response, ShareGroupErrors.of(group, e)));
    }
    outcomes.forEach((topic, refusal) -> {
      DeleteShareGroupOffsetsResponseTopic r = row(topic).setErrorCode(Errors.NONE.code());
      if (refusal != null && refusal.noOffsets()) {
        r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).setErrorMessage(NO_OFFSETS);
      } else if (refusal != null) {
        Failure f = GroupErrors.of(refusal.error());
        r.setErrorCode(f.code()).setErrorMessage(f.message());
      }
      response.responses().add(r);
    });
    response.responses().addAll(denied);
    return done(response.setErrorCode(Errors.NONE.code()));
  }

  private DeleteShareGroupOffsetsResponseTopic row(String topic) {
    UUID id = topics.idOf(topic);
    return new DeleteShareGroupOffsetsResponseTopic().setTopicName(topic)
        .setTopicId(id == null ? Uuid.ZERO_UUID : TopicIds.toKafka(id));
  }

  private static DeleteShareGroupOffsetsResponseData failed(DeleteShareGroupOffsetsResponseData r, Failure f) {
    return r.setErrorCode(f.code()).setErrorMessage(f.message());
  }

  private static CompletableFuture<ApiMessage> done(DeleteShareGroupOffsetsResponseData r) {
    return CompletableFuture.completedFuture(r);
  }
}
