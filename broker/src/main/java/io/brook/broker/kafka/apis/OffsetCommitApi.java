package io.brook.broker.kafka.apis;

import io.brook.broker.core.GroupService;
import io.brook.broker.core.TopicAdmin;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.CommitOutcome;
import io.brook.broker.groups.CommitRequest;
import io.brook.broker.groups.MemberFaultException;
import io.brook.broker.groups.TopicPartition;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetCommit into Brook's committed offsets, the same ones gRPC and {@code bin/brook group} see.
 * Who may commit is the group's engine's to say (classic generation, KIP-848 member epoch; a KIP-848
 * member's commit below v9 is UNSUPPORTED_VERSION, as Kafka answers), or, with no member and generation
 * -1, anyone while the group has no members (Admin, --reset-offsets, assign() consumers). A refusal of
 * the whole request is every partition's error, as Kafka answers.
 * Brook refuses an offset past the partition's end (OFFSET_OUT_OF_RANGE), where Kafka takes any.
 */
public final class OffsetCommitApi implements KafkaApi {
  /** The first version that answers GROUP_ID_NOT_FOUND for a member's commit to an unknown group. */
  private static final short GROUP_NOT_FOUND_VERSION = 9;
  /** The first version naming topics by id. */
  private static final short TOPIC_ID_VERSION = 10;

  private final GroupService groups;
  private final TopicAdmin topics;

  public OffsetCommitApi(GroupService groups, TopicAdmin topics) {
    this.groups = groups;
    this.topics = topics;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.OFFSET_COMMIT;
  }

  @Override
  public short minVersion() {
    return 2;
  }

  @Override
  public short maxVersion() {
    return 10;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    OffsetCommitRequestData body = (OffsetCommitRequestData) request.body();
    boolean byId = request.apiVersion() >= TOPIC_ID_VERSION;
    KafkaCaller caller = request.caller();
    String group = body.groupId();
    Failure whole = null;
    if (group.isEmpty()) {
      whole = new Failure(Errors.INVALID_GROUP_ID, "the group id is empty");
    } else if (!caller.consumeGroup(group)) {
      whole = GroupErrors.notAuthorized(group);
    }
    // Each partition's answer, in request order; those still null go to the group.
    List<OffsetCommitResponseTopic> answer = new ArrayList<>();
    Map<TopicPartition, OffsetCommitResponsePartition> toCommit = new HashMap<>();
    List<CommitRequest> offsets = new ArrayList<>();
    for (OffsetCommitRequestTopic t : body.topics()) {
      String name = byId ? ConsumerOffsetsTopic.nameOf(t.topicId(), topics) : t.name();
      OffsetCommitResponseTopic topic = new OffsetCommitResponseTopic().setName(byId ? "" : t.name())
          .setTopicId(byId ? t.topicId() : Uuid.ZERO_UUID);
      answer.add(topic);
      Errors topicError = whole != null ? whole.error()
          : name == null ? Errors.UNKNOWN_TOPIC_ID
          : !caller.consume(name) ? Errors.TOPIC_AUTHORIZATION_FAILED
          : Errors.NONE;
      for (OffsetCommitRequestPartition p : t.partitions()) {
        OffsetCommitResponsePartition part = new OffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex())
            .setErrorCode(topicError.code());
        topic.partitions().add(part);
        if (topicError == Errors.NONE) {
          TopicPartition tp = new TopicPartition(name, p.partitionIndex());
          toCommit.put(tp, part);
          if (!ConsumerOffsetsTopic.is(name)) {
            offsets.add(new CommitRequest(tp, p.committedOffset(),
                p.committedMetadata() == null ? "" : p.committedMetadata()));
          } // its empty log has no position worth keeping: taken (NONE) once the member's commit is, as on Kafka
        }
      }
    }
    if (whole == null) {
      commit(request, body, group, offsets, toCommit);
    }
    return CompletableFuture.completedFuture(new OffsetCommitResponseData().setThrottleTimeMs(0).setTopics(answer));
  }

  private void commit(KafkaRequest request, OffsetCommitRequestData body, String group, List<CommitRequest> offsets,
      Map<TopicPartition, OffsetCommitResponsePartition> answers) {
    try {
      List<CommitOutcome> outcomes = groups.kafkaCommit(group, body.memberId(), body.groupInstanceId(),
          body.generationIdOrMemberEpoch(), offsets, request.caller().principal(), request.apiVersion());
      for (CommitOutcome o : outcomes) {
        Errors code = o.error() == null ? Errors.NONE
            : KafkaErrors.of(o.error()).invalidRequestAs(Errors.OFFSET_METADATA_TOO_LARGE).error();
        answers.get(o.tp()).setErrorCode(code.code());
      }
    } catch (BrokerException | MemberFaultException e) {
      Failure f = GroupErrors.of(e).invalidRequestAs(Errors.INVALID_GROUP_ID); // the only whole-request check
      if (f.error() == Errors.GROUP_ID_NOT_FOUND && request.apiVersion() < GROUP_NOT_FOUND_VERSION) {
        f = new Failure(Errors.ILLEGAL_GENERATION, f.message()); // what older clients expect there
      }
      short code = f.code();
      answers.values().forEach(p -> p.setErrorCode(code));
    }
  }
}
