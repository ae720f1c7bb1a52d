package io.brook.client.producer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A record with a negative timestamp is refused when it is made, before it can fail its whole batch. */
class ProducerRecordTest {
  @Test
  void aNegativeTimestampIsRefusedAndZeroOrNoneIsKept() {
    assertThatThrownBy(() -> new ProducerRecord<>("t", 0, -1L, "k", "v", List.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timestampMs must be >= 0");
    assertThat(new ProducerRecord<>("t", 0, 0L, "k", "v", List.of()).timestampMs()).isZero();
    assertThat(new ProducerRecord<>("t", "v").timestampMs()).isNull();
  }
}
