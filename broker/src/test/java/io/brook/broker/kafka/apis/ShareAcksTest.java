package io.brook.broker.kafka.apis;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.groups.Settlement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Kafka's acknowledgement batches as Brook's settlements. */
class ShareAcksTest {
  static ShareAcks.Batch batch(long first, long last, Integer... types) {
    return new ShareAcks.Batch(first, last, java.util.Arrays.stream(types).map(Integer::byteValue).toList());
  }

  @Test
  void oneTypePerOffsetBecomesRunsOfOneKind() {
    Settlement s = ShareAcks.empty();
    assertThat(ShareAcks.add("t", 2, List.of(batch(10, 16, 1, 1, 2, 3, 3, 0, 4)), true, s)).isNull();
    assertThat(s.acks()).containsExactly(new Settlement.Range("t", 2, 10, 11), new Settlement.Range("t", 2, 15, 15));
    assertThat(s.nacks()).containsExactly(new Settlement.Nack(new Settlement.Range("t", 2, 12, 12), 0, false),
        new Settlement.Nack(new Settlement.Range("t", 2, 13, 14), 0, true));
    assertThat(s.extensions()).containsExactly(new Settlement.Extension(new Settlement.Range("t", 2, 16, 16), 0));
  }

  @Test
  void oneTypeAppliesToTheWholeBatch() {
    Settlement s = ShareAcks.empty();
    assertThat(ShareAcks.add("t", 0, List.of(batch(0, 99, 3)), false, s)).isNull();
    assertThat(s.nacks()).containsExactly(new Settlement.Nack(new Settlement.Range("t", 0, 0, 99), 0, true));
  }

  @Test
  void malformedBatchesAreRefusedWithoutApplyingAny() {
    Settlement s = ShareAcks.empty();
    assertThat(ShareAcks.add("t", 0, List.of(batch(0, 1, 1), batch(5, 4, 1)), false, s)).contains("not a range");
    assertThat(ShareAcks.add("t", 0, List.of(batch(0, 3, 1, 1)), false, s)).contains("2 types");
    assertThat(ShareAcks.add("t", 0, List.of(batch(0, 0, 9)), false, s)).contains("type 9");
    assertThat(ShareAcks.add("t", 0, List.of(batch(0, 0, 4)), false, s)).contains("renew needs version 2");
    assertThat(ShareAcks.add("t", 0, List.of(batch(0, 0)), false, s)).contains("0 types");
    assertThat(s.acks()).isEmpty();
    assertThat(s.nacks()).isEmpty();
  }
}
