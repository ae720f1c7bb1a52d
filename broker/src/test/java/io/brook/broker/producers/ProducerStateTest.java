package io.brook.broker.producers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProducerStateTest {
  final ProducerState state = new ProducerState();

  void written(long pid, int epoch, int seq, int count, long offset) {
    assertThat(state.check(pid, (short) epoch, seq, count)).isNull();
    state.record(pid, (short) epoch, seq, count, offset, 1000 + offset);
  }

  static void assertRefused(Runnable call, BrokerError error, String message) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(BrokerException.class, e -> {
      assertThat(e.error()).isEqualTo(error);
      assertThat(e.getMessage()).contains(message);
    });
  }

  @Test
  void aRetryOfAnyOfTheLastFiveBatchesIsADuplicateWithItsFirstOffsets() {
    for (int b = 0; b < 7; b++) {
      written(1, 0, b * 10, 10, 100 + b * 10);
    }
    ProducerState.Batch retry = state.check(1, (short) 0, 30, 10);
    assertThat(retry.baseOffset()).isEqualTo(130);
    assertThat(retry.appendTimeMs()).isEqualTo(1130);
    assertThat(state.check(1, (short) 0, 60, 10).baseOffset()).isEqualTo(160);
    assertRefused(() -> state.check(1, (short) 0, 10, 10), BrokerError.OUT_OF_ORDER_SEQUENCE,
        "expected sequence 70, got 10");
  }

  @Test
  void gapsAndPartialOverlapsAreOutOfOrder() {
    written(1, 0, 0, 5, 0);
    assertRefused(() -> state.check(1, (short) 0, 6, 1), BrokerError.OUT_OF_ORDER_SEQUENCE, "expected sequence 5");
    assertRefused(() -> state.check(1, (short) 0, 0, 3), BrokerError.OUT_OF_ORDER_SEQUENCE, "expected sequence 5");
    assertThat(state.check(1, (short) 0, 5, 1)).isNull();
  }

  @Test
  void epochsFenceOlderInstancesAndANewEpochStartsAtZero() {
    written(1, 0, 0, 3, 0);
    assertRefused(() -> state.check(1, (short) 1, 3, 1), BrokerError.OUT_OF_ORDER_SEQUENCE, "must start at sequence 0");
    written(1, 1, 0, 2, 3);
    assertRefused(() -> state.check(1, (short) 0, 3, 1), BrokerError.PRODUCER_FENCED, "epoch 0 is fenced");
    assertThat(state.check(1, (short) 1, 0, 2).baseOffset()).as("retry in the new epoch").isEqualTo(3);
  }

  @Test
  void anUnknownProducerMustStartAtZero() {
    assertRefused(() -> state.check(9, (short) 0, 4, 1), BrokerError.UNKNOWN_PRODUCER_ID, "no state for producer 9");
    assertThat(state.check(9, (short) 0, 0, 1)).isNull();
  }

  @Test
  void sequencesWrapAtIntegerMaxLikeKafkas() {
    state.record(1, (short) 0, Integer.MAX_VALUE - 1, 2, 1, 0); // a producer that has come this far
    assertThat(state.check(1, (short) 0, 0, 1)).as("after MAX_VALUE comes 0").isNull();
    assertThat(ProducerState.addSeq(Integer.MAX_VALUE, 1)).isZero();
    assertThat(state.check(1, (short) 0, Integer.MAX_VALUE - 1, 2)).isNotNull();
  }

  @Test
  void idleProducersExpire() {
    state.record(1, (short) 0, 0, 1, 0, 1_000);
    state.record(2, (short) 0, 0, 1, 1, 5_000);
    assertThat(state.expire(2_000)).isEqualTo(1);
    assertThat(state.size()).isEqualTo(1);
    assertRefused(() -> state.check(1, (short) 0, 1, 1), BrokerError.UNKNOWN_PRODUCER_ID, "no state");
  }

  @Test
  void snapshotsRoundTripAndADamagedOneIsIgnored(@TempDir Path dir) throws Exception {
    for (int b = 0; b < 6; b++) {
      written(7, 2, b, 1, b);
    }
    written(8, 0, 0, 4, 6);
    Path file = dir.resolve("producer-state.snapshot");
    state.writeSnapshot(file, 10);
    ProducerState.Loaded loaded = ProducerState.readSnapshot(file);
    assertThat(loaded.offset()).isEqualTo(10);
    assertThat(loaded.state().size()).isEqualTo(2);
    assertThat(loaded.state().check(7, (short) 2, 5, 1).baseOffset()).isEqualTo(5);
    assertThat(loaded.state().check(7, (short) 2, 6, 1)).isNull();
    assertRefused(() -> loaded.state().check(7, (short) 2, 0, 1), BrokerError.OUT_OF_ORDER_SEQUENCE, "expected sequence 6");

    byte[] bytes = Files.readAllBytes(file);
    bytes[20] ^= 1;
    Files.write(file, bytes);
    assertThat(ProducerState.readSnapshot(file)).isNull();
    assertThat(ProducerState.readSnapshot(dir.resolve("missing"))).isNull();
  }
}
