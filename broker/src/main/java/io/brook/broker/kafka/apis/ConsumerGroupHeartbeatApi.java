package io.brook.broker.kafka.apis;

import io.brook.broker.core.ConsumerGroupService;
import io.brook.broker.groups.consumer.ConsumerHeartbeat;
import io.brook.broker.groups.consumer.HeartbeatAnswer;
import io.brook.broker.groups.consumer.TopicPartitions;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ConsumerGroupHeartbeat (KIP-848, {@code group.protocol=consumer}): join, leave and heartbeat of a
 * consumer whose partitions the broker assigns; answered at once, never held. Topics go by id both
 * ways (Brook's topic id is Kafka's, D47).
 */
public final class ConsumerGroupHeartbeatApi implements KafkaApi {
  private final ConsumerGroupService groups;

  public ConsumerGroupHeartbeatApi(ConsumerGroupService groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.CONSUMER_GROUP_HEARTBEAT;
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
    ConsumerGroupHeartbeatRequestData body = (ConsumerGroupHeartbeatRequestData) request.body();
    ConsumerGroupHeartbeatResponseData response = new ConsumerGroupHeartbeatResponseData().setThrottleTimeMs(0);
    KafkaCaller caller = request.caller();
    if (!caller.consumeGroup(body.groupId())) {
      return done(response.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())
          .setErrorMessage("not allowed to consume as group '" + body.groupId() + "'"));
    }
    if (body.subscribedTopicNames() != null) {
      for (String topic : body.subscribedTopicNames()) {
        if (!caller.anyOnTopic(topic)) {
          return done(response.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
              .setErrorMessage("not allowed to see topic '" + topic + "'"));
        }
      }
    }
    List<TopicPartitions> owned = body.topicPartitions() == null ? null : body.topicPartitions().stream()
        .map(t -> new TopicPartitions(new java.util.UUID(t.topicId().getMostSignificantBits(),
            t.topicId().getLeastSignificantBits()), List.copyOf(t.partitions()))).toList();
    ConsumerHeartbeat hb = new ConsumerHeartbeat(body.groupId(), body.memberId(), body.memberEpoch(),
        body.instanceId(), body.rackId(), body.rebalanceTimeoutMs(), body.subscribedTopicNames(),
        body.subscribedTopicRegex(), body.serverAssignor(), owned, request.clientId() == null ? "" : request.clientId(),
        ParkedAnswers.host(request), caller.principal(), caller.visibleTopics());
    try {
      HeartbeatAnswer answer = groups.heartbeat(hb, request.apiVersion() >= 1);
      if (answer.fault() != null) {
        return done(response.setErrorCode(GroupErrors.of(answer.fault()).code())
            .setErrorMessage(answer.message()));
      }
      response.setErrorCode(Errors.NONE.code()).setMemberId(answer.memberId()).setMemberEpoch(answer.memberEpoch())
          .setHeartbeatIntervalMs(answer.heartbeatIntervalMs());
      if (answer.assignment() != null) {
        response.setAssignment(new ConsumerGroupHeartbeatResponseData.Assignment().setTopicPartitions(
            answer.assignment().stream().map(t -> new ConsumerGroupHeartbeatResponseData.TopicPartitions()
                .setTopicId(new Uuid(t.topicId().getMostSignificantBits(), t.topicId().getLeastSignificantBits()))
                .setPartitions(t.partitions())).toList()));
      }
      return done(response);
    } catch (RuntimeException e) {
      KafkaErrors.Failure f = GroupErrors.of(e).invalidRequestAs(Errors.INVALID_GROUP_ID);
      return done(response.setErrorCode(f.code()).setErrorMessage(f.message()));
    }
  }

  private static CompletableFuture<ApiMessage> done(ApiMessage m) {
    return CompletableFuture.completedFuture(m);
  }
}
