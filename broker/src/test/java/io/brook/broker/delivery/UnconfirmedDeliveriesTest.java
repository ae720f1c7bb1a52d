package io.brook.broker.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.records.LogRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

class UnconfirmedDeliveriesTest {
  private static final long MS = 1_000_000;
  private final UnconfirmedDeliveries u = new UnconfirmedDeliveries();

  private static List<Delivery> deliveries(long... offsets) {
    List<Delivery> out = new java.util.ArrayList<>();
    for (long o : offsets) {
      out.add(new Delivery("t", 0, new LogRecord(o, 0, null, new byte[0], List.of()), 1, 0));
    }
    return out;
  }

  private static List<Long> offsets(List<SentDelivery> sent) {
    return sent.stream().map(SentDelivery::offset).toList();
  }

  @Test
  void whatWasNotWrittenOrWrittenJustBeforeTheFailureGoesBack() {
    u.sent(deliveries(1, 2), 5 * MS);
    u.written(10 * MS);
    u.sent(deliveries(3), 11 * MS);
    assertThat(offsets(u.endedAt(10 * MS + 999 * MS))).containsExactly(1L, 2L, 3L);
  }

  @Test
  void aStreamThatStayedOpenASecondAfterTheWriteOutlivedIt() {
    u.sent(deliveries(1, 2), 5 * MS);
    u.written(10 * MS);
    u.sent(deliveries(3), 11 * MS);
    assertThat(offsets(u.endedAt(1010 * MS))).containsExactly(3L);
  }
}
