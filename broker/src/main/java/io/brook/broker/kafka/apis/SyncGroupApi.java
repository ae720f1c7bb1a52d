package io.brook.broker.kafka.apis;

import io.brook.broker.core.ClassicGroupService;
import io.brook.broker.groups.MemberFault;
import io.brook.broker.groups.classic.ClassicSync;
import io.brook.broker.groups.classic.MemberAssignment;
import io.brook.broker.groups.classic.SyncAnswer;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.groups.ConsumerProtocolCodec;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * SyncGroup (classic protocol): the leader's carries every member's assignment, which the broker
 * relays; a follower's is parked until the leader's comes. Assignments are read as a consumer's
 * (partitions) for describe and lag, and relayed as they came.
 */
public final class SyncGroupApi implements KafkaApi {
  private final ClassicGroupService groups;

  public SyncGroupApi(ClassicGroupService groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.SYNC_GROUP;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 5;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    SyncGroupRequestData body = (SyncGroupRequestData) request.body();
    short version = request.apiVersion();
    if (!request.caller().consumeGroup(body.groupId())) {
      return CompletableFuture.completedFuture(response(version, SyncAnswer.refused(MemberFault.GROUP_AUTHORIZATION_FAILED)));
    }
    Map<String, MemberAssignment> assignments = new HashMap<>();
    body.assignments().forEach(a -> assignments.put(a.memberId(),
        new MemberAssignment(a.assignment(), ConsumerProtocolCodec.partitions(a.assignment()))));
    ClassicSync sync = new ClassicSync(body.generationId(), body.memberId(), body.groupInstanceId(), body.protocolType(),
        body.protocolName(), assignments, request.caller().principal());
    return ParkedAnswers.of(request, groups.sync(body.groupId(), sync), answer -> response(version, answer));
  }

  private static SyncGroupResponseData response(short version, SyncAnswer a) {
    SyncGroupResponseData r = new SyncGroupResponseData().setThrottleTimeMs(0).setErrorCode(ParkedAnswers.code(a.fault()))
        .setAssignment(a.fault() == null && a.assignment() == null
            ? ConsumerProtocolCodec.assignment(a.assigned(), a.subscription())
            : a.assignment() == null ? new byte[0] : a.assignment());
    if (version >= 5) {
      r.setProtocolType(a.protocolType()).setProtocolName(a.protocolName());
    }
    return r;
  }
}
