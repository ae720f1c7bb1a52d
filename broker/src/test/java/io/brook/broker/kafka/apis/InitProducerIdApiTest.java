package io.brook.broker.kafka.apis;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.core.BatchOutcome;
import io.brook.broker.core.BatchToAppend;
import io.brook.broker.core.ProduceCall;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.records.IncomingBatch;
import io.brook.broker.records.LogRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** InitProducerId on the broker's producer ids, the ones gRPC's InitProducer hands out. */
class InitProducerIdApiTest {
  @TempDir Path dir;
  KafkaCore core;

  @AfterEach
  void close() {
    if (core != null) {
      core.close();
    }
  }

  InitProducerIdResponseData init(short version, InitProducerIdRequestData request) throws Exception {
    return core.call(ApiKeys.INIT_PRODUCER_ID, version, request);
  }

  static InitProducerIdRequestData idempotent() {
    return new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(60_000);
  }

  @Test
  void eachIdempotentProducerGetsANewIdAtEpochZeroInEveryVersion() throws Exception {
    core = new KafkaCore(dir);
    long previous = 0;
    for (short v = 0; v <= 6; v++) {
      InitProducerIdResponseData r = init(v, idempotent());
      assertThat(r.errorCode()).as("v" + v).isEqualTo(Errors.NONE.code());
      assertThat(r.producerEpoch()).isZero();
      assertThat(r.producerId()).isGreaterThan(previous);
      previous = r.producerId();
    }
  }

  @Test
  void idsAreNeverHandedOutTwiceAcrossARestart() throws Exception {
    core = new KafkaCore(dir);
    long before = init((short) 5, idempotent()).producerId();
    core.close();
    core = new KafkaCore(dir);
    assertThat(init((short) 5, idempotent()).producerId()).isGreaterThan(before);
  }

  @Test
  void anIdGivenAgainGetsTheNextEpochWhichFencesTheOlderInstance() throws Exception {
    core = new KafkaCore(dir);
    core.admin.create("t", 1, Map.of());
    InitProducerIdResponseData first = init((short) 5, idempotent());
    InitProducerIdResponseData again = init((short) 5, idempotent().setProducerId(first.producerId())
        .setProducerEpoch(first.producerEpoch()));
    assertThat(again.errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(again.producerId()).isEqualTo(first.producerId());
    assertThat(again.producerEpoch()).isEqualTo((short) 1);

    // The same registry the produce path checks: the old epoch is fenced there.
    IncomingBatch batch = new IncomingBatch.Listed(List.of(LogRecord.of(null, "v".getBytes(),
        IncomingBatch.Listed.NO_TIMESTAMP, List.of())));
    List<BatchOutcome> out = core.produce.produce(new ProduceCall(null, List.of(BatchToAppend.of("t", 0, 0,
        () -> batch, 10)), false, new ProduceCall.Producer(first.producerId(), first.producerEpoch())), e -> { }).get();
    assertThat(out.get(0).error()).isEqualTo(BrokerError.PRODUCER_FENCED);
  }

  @Test
  void anIdWithoutAnEpochOrTheReverseIsAnInvalidRequest() throws Exception {
    core = new KafkaCore(dir);
    assertThat(init((short) 5, idempotent().setProducerId(5)).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
    assertThat(init((short) 5, idempotent().setProducerEpoch((short) 0)).errorCode())
        .isEqualTo(Errors.INVALID_REQUEST.code());
  }

  @Test
  void anUnknownIdIsRefused() throws Exception {
    core = new KafkaCore(dir);
    InitProducerIdResponseData r = init((short) 5, idempotent().setProducerId(123_456_789L).setProducerEpoch((short) 0));
    assertThat(r.errorCode()).isEqualTo(Errors.UNKNOWN_PRODUCER_ID.code());
    assertThat(r.producerId()).isEqualTo(-1);
  }

  @Test
  void aTransactionalIdIsRefusedAtOnceAsFatal() throws Exception {
    core = new KafkaCore(dir);
    InitProducerIdResponseData r = init((short) 5, idempotent().setTransactionalId("tx-1"));
    assertThat(r.errorCode()).isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code());
    assertThat(Errors.forCode(r.errorCode()).exception()).isNotInstanceOf(
        org.apache.kafka.common.errors.RetriableException.class);
    assertThat(r.producerId()).isEqualTo(-1);
  }
}
