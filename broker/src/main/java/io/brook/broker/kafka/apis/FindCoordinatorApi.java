package io.brook.broker.kafka.apis;

import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaListenerInfo;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * FindCoordinator: this node coordinates every group (Brook is one node). Brook has no transactions,
 * so a transaction coordinator is refused as InitProducerId refuses transactional ids (fatal to the
 * client, where COORDINATOR_NOT_AVAILABLE would be retried forever); share groups are not served yet.
 * v4+ asks for many keys at once and is answered per key.
 */
public final class FindCoordinatorApi implements KafkaApi {
  static final byte GROUP = 0;
  static final byte TRANSACTION = 1;
  static final byte SHARE = 2;

  @Override
  public ApiKeys key() {
    return ApiKeys.FIND_COORDINATOR;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 6;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    FindCoordinatorRequestData body = (FindCoordinatorRequestData) request.body();
    FindCoordinatorResponseData response = new FindCoordinatorResponseData().setThrottleTimeMs(0);
    if (request.apiVersion() >= 4) {
      List<Coordinator> answers = new ArrayList<>();
      for (String key : body.coordinatorKeys()) {
        answers.add(find(request, body.keyType(), key));
      }
      return CompletableFuture.completedFuture(response.setCoordinators(answers));
    }
    Coordinator c = find(request, body.keyType(), body.key());
    return CompletableFuture.completedFuture(response.setErrorCode(c.errorCode())
        .setErrorMessage(request.apiVersion() >= 1 ? c.errorMessage() : null)
        .setNodeId(c.nodeId()).setHost(c.host()).setPort(c.port()));
  }

  private static Coordinator find(KafkaRequest request, byte keyType, String key) {
    Coordinator answer = new Coordinator().setKey(key).setNodeId(-1).setHost("").setPort(-1);
    KafkaCaller caller = request.caller();
    switch (keyType) {
      case GROUP -> {
        if (!caller.anyOnGroup(key)) {
          return refuse(answer, GroupErrors.notAuthorized(key).error(), "not authorized for group '" + key + "'");
        }
        KafkaListenerInfo node = request.listener();
        return answer.setErrorCode(Errors.NONE.code()).setErrorMessage(null).setNodeId(node.nodeId())
            .setHost(node.advertisedHost()).setPort(node.advertisedPort());
      }
      case TRANSACTION -> {
        return refuse(answer, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
            "Brook has no transactions: no transaction coordinator for '" + key + "'");
      }
      case SHARE -> {
        return refuse(answer, Errors.COORDINATOR_NOT_AVAILABLE, "Brook serves no share groups over Kafka yet");
      }
      default -> {
        return refuse(answer, Errors.INVALID_REQUEST, "unknown coordinator key type " + keyType
            + " (0: group, 1: transaction, 2: share)");
      }
    }
  }

  private static Coordinator refuse(Coordinator answer, Errors error, String message) {
    return answer.setErrorCode(error.code()).setErrorMessage(message);
  }
}
