package io.brook.broker.kafka.apis;

import io.brook.broker.core.ShareFetchCall;
import io.brook.broker.core.ShareFetchResult;
import io.brook.broker.core.ShareGroupService;
import io.brook.broker.core.TopicAdmin;
import io.brook.broker.groups.TopicPartition;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareFetchRequestData;
import org.apache.kafka.common.message.ShareFetchResponseData;
import org.apache.kafka.common.message.ShareFetchResponseData.AcquiredRecords;
import org.apache.kafka.common.message.ShareFetchResponseData.LeaderIdAndEpoch;
import org.apache.kafka.common.message.ShareFetchResponseData.PartitionData;
import org.apache.kafka.common.message.ShareFetchResponseData.ShareFetchableTopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * ShareFetch (KIP-932): a share member's session moves on, its piggy-backed acknowledgements apply,
 * and it waits for records the group's dispatch acquires for it (D65). The answer holds the stored
 * batches that contain them, as stored, and the acquired offsets with their delivery counts; a
 * partition of the session that got records is answered even when this request did not name it.
 */
public final class ShareFetchApi implements KafkaApi {
  /** The node every partition's leader is (Brook is one node). */
  private static final LeaderIdAndEpoch LEADER = new LeaderIdAndEpoch().setLeaderId(0).setLeaderEpoch(0);

  private final ShareGroupService shares;
  private final TopicAdmin topics;

  public ShareFetchApi(ShareGroupService shares, TopicAdmin topics) {
    this.shares = shares;
    this.topics = topics;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.SHARE_FETCH;
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
    ShareFetchRequestData body = (ShareFetchRequestData) request.body();
    ShareFetchResponseData response = new ShareFetchResponseData().setThrottleTimeMs(0);
    if (body.groupId() == null || !request.caller().consumeGroup(body.groupId())) {
      return done(response.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code())
          .setErrorMessage("not allowed to consume as group '" + body.groupId() + "'"));
    }
    ShareParts parts = new ShareParts(topics, request.caller(), request.apiVersion() >= 2 && body.isRenewAck());
    for (ShareFetchRequestData.FetchTopic t : body.topics()) {
      for (ShareFetchRequestData.FetchPartition p : t.partitions()) {
        parts.add(t.topicId(), p.partitionIndex(), p.acknowledgementBatches().stream()
            .map(b -> new ShareAcks.Batch(b.firstOffset(), b.lastOffset(), b.acknowledgeTypes())).toList());
      }
    }
    List<TopicPartition> forgotten = new ArrayList<>();
    for (ShareFetchRequestData.ForgottenTopic t : body.forgottenTopicsData()) {
      String name = topics.nameOf(TopicIds.toBrook(t.topicId()));
      if (name != null) {
        t.partitions().forEach(p -> forgotten.add(new TopicPartition(name, p)));
      }
    }
    // Wait, bytes and records all 0 (renewals always): the request only acknowledges and moves the
    // session; acquiring records then would lock them in a buffer the application does not read yet.
    boolean renew = request.apiVersion() >= 2 && body.isRenewAck();
    boolean fetch = !renew && body.maxBytes() != 0 && body.maxRecords() != 0;
    ShareFetchCall call = new ShareFetchCall(body.groupId(), body.memberId(), request.caller().principal(),
        body.shareSessionEpoch(), parts.named, forgotten, parts.acks, fetch, body.maxRecords(),
        body.maxBytes() > 0 ? Math.min(body.maxBytes(), FetchApi.MAX_ANSWER_BYTES) : FetchApi.MAX_ANSWER_BYTES,
        Math.max(0, body.maxWaitMs()));
    ShareGroupService.Pending pending;
    try {
      pending = shares.start(call);
    } catch (RuntimeException e) {
      return done(refused(response, e));
    }
    // A connection that closes while the fetch waits ends the wait: records then stay with the group.
    Runnable closed = pending.cancel();
    request.memory().connection().onClose(closed);
    return pending.result().handle((r, e) -> {
      request.memory().connection().removeOnClose(closed);
      return e != null ? refused(response, e) : answer(response, parts, r);
    });
  }

  private static ShareFetchResponseData answer(ShareFetchResponseData response, ShareParts parts, ShareFetchResult r) {
    parts.failed(r.ackFailures());
    for (ShareFetchResult.Acquired a : r.partitions()) {
      parts.of(a.topic(), a.partition());
    }
    Map<String, PartitionData> byPart = new LinkedHashMap<>();
    Map<Uuid, ShareFetchableTopicResponse> byTopic = new LinkedHashMap<>();
    for (ShareParts.Part p : parts.parts.values()) {
      ShareFetchableTopicResponse t = byTopic.computeIfAbsent(p.topicId, id -> {
        ShareFetchableTopicResponse nt = new ShareFetchableTopicResponse().setTopicId(id);
        response.responses().add(nt);
        return nt;
      });
      PartitionData d = new PartitionData().setPartitionIndex(p.partition).setErrorCode(p.error.code())
          .setErrorMessage(p.message).setAcknowledgeErrorCode(p.ackError.code()).setAcknowledgeErrorMessage(p.ackMessage)
          .setCurrentLeader(LEADER.duplicate()).setRecords(MemoryRecords.EMPTY);
      t.partitions().add(d);
      byPart.put(p.topic + ":" + p.partition, d);
    }
    for (ShareFetchResult.Acquired a : r.partitions()) {
      PartitionData d = byPart.get(a.topic() + ":" + a.partition());
      if (!a.batches().isEmpty()) {
        d.setRecords(MemoryRecords.readableRecords(FetchApi.joined(a.batches())));
      }
      List<AcquiredRecords> acquired = new ArrayList<>();
      for (ShareFetchResult.Run run : a.runs()) {
        acquired.add(new AcquiredRecords().setFirstOffset(run.first()).setLastOffset(run.last())
            .setDeliveryCount((short) Math.min(Short.MAX_VALUE, run.deliveryCount())));
      }
      d.setAcquiredRecords(acquired);
    }
    return response.setErrorCode(Errors.NONE.code()).setAcquisitionLockTimeoutMs((int) r.lockMs());
  }

  private static ShareFetchResponseData refused(ShareFetchResponseData response, Throwable e) {
    KafkaErrors.Failure f = ShareGroupErrors.of(unwrap(e));
    return response.setErrorCode(f.code()).setErrorMessage(f.message());
  }

  /** The refusal a failed stage carries. */
  static RuntimeException unwrap(Throwable e) {
    Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    return t instanceof RuntimeException re ? re : new IllegalStateException(t);
  }

  private static CompletableFuture<ApiMessage> done(ApiMessage m) {
    return CompletableFuture.completedFuture(m);
  }
}
