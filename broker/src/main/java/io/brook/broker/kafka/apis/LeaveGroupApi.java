package io.brook.broker.kafka.apis;

import io.brook.broker.core.ClassicGroupService;
import io.brook.broker.groups.MemberFault;
import io.brook.broker.groups.classic.LeaveAnswer;
import io.brook.broker.groups.classic.MemberIdentity;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * LeaveGroup (classic protocol): one member below v3, a batch from v3 (by member id, or by instance
 * id for static members, as kafka-consumer-groups --delete-members does), answered per member.
 */
public final class LeaveGroupApi implements KafkaApi {
  private final ClassicGroupService groups;

  public LeaveGroupApi(ClassicGroupService groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.LEAVE_GROUP;
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
    LeaveGroupRequestData body = (LeaveGroupRequestData) request.body();
    short version = request.apiVersion();
    List<MemberIdentity> leaving = new ArrayList<>();
    if (version < 3) {
      leaving.add(new MemberIdentity(body.memberId(), null));
    } else {
      body.members().forEach(m -> leaving.add(new MemberIdentity(m.memberId(), m.groupInstanceId())));
    }
    LeaveAnswer answer = request.caller().consumeGroup(body.groupId())
        ? groups.leave(body.groupId(), leaving, request.caller().principal())
        : new LeaveAnswer(MemberFault.GROUP_AUTHORIZATION_FAILED, List.of());
    LeaveGroupResponseData r = new LeaveGroupResponseData().setThrottleTimeMs(0);
    if (answer.fault() != null) {
      return CompletableFuture.completedFuture(r.setErrorCode(ParkedAnswers.code(answer.fault())));
    }
    if (version < 3) { // one member: its outcome is the answer's
      return CompletableFuture.completedFuture(r.setErrorCode(ParkedAnswers.code(answer.members().get(0))));
    }
    for (int i = 0; i < leaving.size(); i++) {
      r.members().add(new LeaveGroupResponseData.MemberResponse().setMemberId(leaving.get(i).memberId())
          .setGroupInstanceId(leaving.get(i).instanceId()).setErrorCode(ParkedAnswers.code(answer.members().get(i))));
    }
    return CompletableFuture.completedFuture(r.setErrorCode(ParkedAnswers.code(null)));
  }
}
