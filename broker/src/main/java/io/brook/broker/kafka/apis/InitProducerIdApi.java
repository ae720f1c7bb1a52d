package io.brook.broker.kafka.apis;

import io.brook.broker.core.ProduceCall;
import io.brook.broker.core.ProduceService;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * InitProducerId for idempotent producers, on the same producer ids as the gRPC InitProducer: a new id
 * at epoch 0, or (v3+, an id and epoch given) the next epoch of that id, which fences the older
 * instance, as gRPC's InitProducer does (Kafka itself hands out a new id then; its clients never ask).
 * Brook has no transactions: a transactional id is refused at once with
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED, which every Kafka client treats as fatal, never retried.
 */
public final class InitProducerIdApi implements KafkaApi {
  private static final Logger log = LoggerFactory.getLogger(InitProducerIdApi.class);
  private final ProduceService produce;

  public InitProducerIdApi(ProduceService produce) {
    this.produce = produce;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.INIT_PRODUCER_ID;
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
    InitProducerIdRequestData body = (InitProducerIdRequestData) request.body();
    InitProducerIdResponseData response = new InitProducerIdResponseData().setThrottleTimeMs(0).setProducerId(-1)
        .setProducerEpoch((short) -1);
    if (body.transactionalId() != null) {
      log.info("Refused transactional id '{}' of Kafka client {} ({}): Brook has no transactions",
          body.transactionalId(), request.clientId(), request.remote());
      return CompletableFuture.completedFuture(response.setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code()));
    }
    if ((body.producerId() < 0) != (body.producerEpoch() < 0)) { // as Kafka: both given (v3+) or neither
      return CompletableFuture.completedFuture(response.setErrorCode(Errors.INVALID_REQUEST.code()));
    }
    if (!request.caller().producesAnything()) { // gRPC's InitProducer rule: the request names no topic
      return CompletableFuture.completedFuture(response.setErrorCode(Unauthorized.cluster(request.caller(),
          "produce on any topic").code()));
    }
    try {
      // The principal owns the id (null with auth off: no owner), as on gRPC.
      ProduceCall.Producer p = produce.initProducer(request.caller().principal(),
          body.producerId() >= 0 ? body.producerId() : null);
      return CompletableFuture.completedFuture(response.setErrorCode(Errors.NONE.code()).setProducerId(p.id())
          .setProducerEpoch(p.epoch()));
    } catch (BrokerException e) {
      return CompletableFuture.completedFuture(response.setErrorCode(KafkaErrors.of(e).code()));
    }
  }
}
