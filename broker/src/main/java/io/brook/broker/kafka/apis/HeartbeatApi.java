package io.brook.broker.kafka.apis;

import io.brook.broker.core.ClassicGroupService;
import io.brook.broker.groups.MemberFault;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Heartbeat (classic protocol), answered at once, never held (a held one would hold up every later
 * answer of its connection): REBALANCE_IN_PROGRESS tells the member to rejoin.
 */
public final class HeartbeatApi implements KafkaApi {
  private final ClassicGroupService groups;

  public HeartbeatApi(ClassicGroupService groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.HEARTBEAT;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 4;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    HeartbeatRequestData body = (HeartbeatRequestData) request.body();
    MemberFault fault = request.caller().consumeGroup(body.groupId())
        ? groups.heartbeat(body.groupId(), body.memberId(), body.groupInstanceId(), body.generationId(),
            request.caller().principal())
        : MemberFault.GROUP_AUTHORIZATION_FAILED;
    return CompletableFuture.completedFuture(new HeartbeatResponseData().setThrottleTimeMs(0)
        .setErrorCode(ParkedAnswers.code(fault)));
  }
}
