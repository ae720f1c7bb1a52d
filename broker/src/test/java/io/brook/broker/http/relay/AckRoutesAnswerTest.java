package io.brook.broker.http.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.groups.Settlement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A settle's answer: 200 when anything it named applied, the first failure's error when nothing did. */
class AckRoutesAnswerTest {
  @Test
  void aSettleThatAppliedSomewhereIs200EvenWithARangeToTheLastOffset() {
    List<Settlement.Range> asked = List.of(new Settlement.Range("t", 0, 1, Long.MAX_VALUE),
        new Settlement.Range("t", 0, 0, 0));
    List<Settlement.Failure> failed = List.of(new Settlement.Failure("t", 0, 1, Long.MAX_VALUE,
        BrokerError.NOT_LEASED, "not leased"));

    assertThat(AckRoutes.answer(asked, failed).status()).isEqualTo(200);
    assertThat(AckRoutes.answer(asked.subList(0, 1), failed).status()).isEqualTo(400);
  }
}
