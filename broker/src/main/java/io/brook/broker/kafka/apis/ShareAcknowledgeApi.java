package io.brook.broker.kafka.apis;

import io.brook.broker.core.ShareFetchCall;
import io.brook.broker.core.ShareFetchResult;
import io.brook.broker.core.ShareGroupService;
import io.brook.broker.core.TopicAdmin;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareAcknowledgeRequestData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData.LeaderIdAndEpoch;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData.PartitionData;
import org.apache.kafka.common.message.ShareAcknowledgeResponseData.ShareAcknowledgeTopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ShareAcknowledge (KIP-932): acknowledgements outside a fetch (commitSync, commitAsync, close) on the
 * member's share session, which moves on as for a fetch; epoch -1 closes the session after them and
 * hands back what the member still holds. Answered at once, per partition.
 */
public final class ShareAcknowledgeApi implements KafkaApi {
  private final ShareGroupService shares;
  private final TopicAdmin topics;

  public ShareAcknowledgeApi(ShareGroupService shares, TopicAdmin topics) {
    this.shares = shares;
    this.topics = topics;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.SHARE_ACKNOWLEDGE;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short maxVersion() {
    return 2;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    ShareAcknowledgeRequestData body = (ShareAcknowledgeRequestData) request.body();
    ShareAcknowledgeResponseData response = new ShareAcknowledgeResponseData().setThrottleTimeMs(0);
    if (body.groupId() == null || !request.caller().consumeGroup(body.groupId())) {
      return done(response.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())
          .setErrorMessage("not allowed to consume as group '" + body.groupId() + "'"));
    }
    ShareParts parts = new ShareParts(topics, request.caller(), request.apiVersion() >= 2 && body.isRenewAck());
    for (ShareAcknowledgeRequestData.AcknowledgeTopic t : body.topics()) {
      for (ShareAcknowledgeRequestData.AcknowledgePartition p : t.partitions()) {
        parts.add(t.topicId(), p.partitionIndex(), p.acknowledgementBatches().stream()
            .map(b -> new ShareAcks.Batch(b.firstOffset(), b.lastOffset(), b.acknowledgeTypes())).toList());
      }
    }
    ShareFetchCall call = new ShareFetchCall(body.groupId(), body.memberId(), request.caller().principal(),
        body.shareSessionEpoch(), List.of(), List.of(), parts.acks, false, 0, 0, 0);
    try {
      ShareFetchResult r = shares.fetch(call).join();
      parts.failed(r.ackFailures());
      Map<Uuid, ShareAcknowledgeTopicResponse> byTopic = new LinkedHashMap<>();
      for (ShareParts.Part p : parts.parts.values()) {
        ShareAcknowledgeTopicResponse t = byTopic.computeIfAbsent(p.topicId, id -> {
          ShareAcknowledgeTopicResponse nt = new ShareAcknowledgeTopicResponse().setTopicId(id);
          response.responses().add(nt);
          return nt;
        });
        Errors e = p.ackError != Errors.NONE ? p.ackError : p.error;
        t.partitions().add(new PartitionData().setPartitionIndex(p.partition).setErrorCode(e.code())
            .setErrorMessage(p.ackError != Errors.NONE ? p.ackMessage : p.message)
            .setCurrentLeader(new LeaderIdAndEpoch().setLeaderId(0).setLeaderEpoch(0)));
      }
      return done(response.setErrorCode(Errors.NONE.code()).setAcquisitionLockTimeoutMs((int) r.lockMs()));
    } catch (RuntimeException e) {
      KafkaErrors.Failure f = ShareGroupErrors.of(ShareFetchApi.unwrap(e));
      return done(response.setErrorCode(f.code()).setErrorMessage(f.message()));
    }
  }

  private static CompletableFuture<ApiMessage> done(ApiMessage m) {
    return CompletableFuture.completedFuture(m);
  }
}
