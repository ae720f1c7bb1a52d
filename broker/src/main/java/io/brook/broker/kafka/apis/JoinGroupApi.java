package io.brook.broker.kafka.apis;

import io.brook.broker.core.ClassicGroupService;
import io.brook.broker.groups.MemberFault;
import io.brook.broker.groups.classic.ClassicJoin;
import io.brook.broker.groups.classic.ClassicProtocol;
import io.brook.broker.groups.classic.JoinAnswer;
import io.brook.broker.groups.classic.JoinedMember;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.groups.ConsumerProtocolCodec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * JoinGroup (classic protocol): parked until the group's rebalance completes. From v4 a new dynamic
 * member first gets MEMBER_ID_REQUIRED with its id; only the leader's answer lists the members with
 * their metadata (a consumer's subscription, read here for describe).
 */
public final class JoinGroupApi implements KafkaApi {
  private final ClassicGroupService groups;

  public JoinGroupApi(ClassicGroupService groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.JOIN_GROUP;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 9;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    JoinGroupRequestData body = (JoinGroupRequestData) request.body();
    short version = request.apiVersion();
    if (!request.caller().consumeGroup(body.groupId())) {
      return CompletableFuture.completedFuture(response(version,
          JoinAnswer.refused(MemberFault.GROUP_AUTHORIZATION_FAILED, body.memberId())));
    }
    boolean consumer = "consumer".equals(body.protocolType());
    List<ClassicProtocol> protocols = new ArrayList<>();
    body.protocols().forEach(p -> protocols.add(new ClassicProtocol(p.name(), p.metadata(),
        consumer ? ConsumerProtocolCodec.topics(p.metadata()) : List.of(),
        consumer ? ConsumerProtocolCodec.owned(p.metadata()) : List.of())));
    // v0 has no rebalance timeout: Kafka takes the session timeout for it.
    int rebalanceMs = version == 0 || body.rebalanceTimeoutMs() <= 0 ? body.sessionTimeoutMs() : body.rebalanceTimeoutMs();
    String instanceId = body.groupInstanceId();
    ClassicJoin join = new ClassicJoin(body.memberId(), instanceId,
        request.clientId() == null ? "" : request.clientId(), ParkedAnswers.host(request), body.sessionTimeoutMs(),
        rebalanceMs, body.protocolType(), protocols, version >= 4 && instanceId == null, version >= 9,
        request.caller().principal());
    return ParkedAnswers.of(request, groups.join(body.groupId(), join), answer -> response(version, answer));
  }

  private static JoinGroupResponseData response(short version, JoinAnswer a) {
    JoinGroupResponseData r = new JoinGroupResponseData().setThrottleTimeMs(0).setErrorCode(ParkedAnswers.code(a.fault()))
        .setGenerationId(a.generation()).setMemberId(a.memberId()).setLeader(a.leaderId() == null ? "" : a.leaderId())
        .setProtocolName(a.protocolName() == null && version < 7 ? "" : a.protocolName());
    if (version >= 7) {
      r.setProtocolType(a.protocolType());
    }
    if (version >= 9) {
      r.setSkipAssignment(a.skipAssignment());
    }
    for (JoinedMember m : a.members()) {
      JoinGroupResponseData.JoinGroupResponseMember member = new JoinGroupResponseData.JoinGroupResponseMember()
          .setMemberId(m.memberId()).setMetadata(m.metadata());
      if (version >= 5) {
        member.setGroupInstanceId(m.instanceId());
      }
      r.members().add(member);
    }
    return r;
  }
}
