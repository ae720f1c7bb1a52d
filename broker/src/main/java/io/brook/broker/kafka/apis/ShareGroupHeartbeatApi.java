package io.brook.broker.kafka.apis;

import io.brook.broker.core.ShareGroupService;
import io.brook.broker.groups.share.ShareHeartbeatAnswer;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ShareGroupHeartbeat (KIP-932): a share consumer joins (epoch 0), heartbeats and leaves (-1) an ack
 * group, and hears its partitions: every partition of the topics it subscribes to (D65). Answered
 * at once.
 */
public final class ShareGroupHeartbeatApi implements KafkaApi {
  private final ShareGroupService shares;

  public ShareGroupHeartbeatApi(ShareGroupService shares) {
    this.shares = shares;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.SHARE_GROUP_HEARTBEAT;
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
    ShareGroupHeartbeatRequestData body = (ShareGroupHeartbeatRequestData) request.body();
    ShareGroupHeartbeatResponseData response = new ShareGroupHeartbeatResponseData().setThrottleTimeMs(0);
    KafkaCaller caller = request.caller();
    if (!caller.consumeGroup(body.groupId())) {
      return done(response.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())
          .setErrorMessage("not allowed to consume as group '" + body.groupId() + "'"));
    }
    if (body.subscribedTopicNames() != null) {
      for (String topic : body.subscribedTopicNames()) {
        if (!caller.consume(topic)) {
          return done(response.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())
              .setErrorMessage("not allowed to consume topic '" + topic + "'"));
        }
      }
    }
    try {
      ShareHeartbeatAnswer a = shares.heartbeat(body.groupId(), body.memberId(), body.memberEpoch(),
          body.subscribedTopicNames(), request.clientId() == null ? "" : request.clientId(), ParkedAnswers.host(request),
          caller.principal());
      response.setErrorCode(Errors.NONE.code()).setMemberId(a.memberId()).setMemberEpoch(a.memberEpoch())
          .setHeartbeatIntervalMs(a.heartbeatIntervalMs());
      if (a.assignment() != null) {
        response.setAssignment(new ShareGroupHeartbeatResponseData.Assignment().setTopicPartitions(
            a.assignment().stream().map(t -> new ShareGroupHeartbeatResponseData.TopicPartitions()
                .setTopicId(TopicIds.toKafka(t.topicId())).setPartitions(t.partitions())).toList()));
      }
      return done(response);
    } catch (RuntimeException e) {
      KafkaErrors.Failure f = ShareGroupErrors.of(e);
      return done(response.setErrorCode(f.code()).setErrorMessage(f.message()));
    }
  }

  private static CompletableFuture<ApiMessage> done(ApiMessage m) {
    return CompletableFuture.completedFuture(m);
  }
}
