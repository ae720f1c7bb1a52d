package io.brook.client.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.client.errors.BrokerUnavailableException;
import io.brook.client.errors.InvalidRequestException;
import io.brook.client.errors.UnknownPartitionException;
import io.brook.client.errors.WakeupException;
import io.grpc.Status;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CallsTest {
  @Test
  void retriableFailuresAreRetriedUntilTheCallSucceeds() {
    Calls calls = new Calls(1, 2);
    AtomicInteger attempts = new AtomicInteger();
    String answer = calls.retrying(60_000, () -> {
      if (attempts.incrementAndGet() < 3) {
        throw Status.UNAVAILABLE.withDescription("down").asRuntimeException();
      }
      return "ok";
    });
    assertThat(answer).isEqualTo("ok");
    assertThat(attempts).hasValue(3);
  }

  @Test
  void aRetriableFailureIsThrownTypedOnceTheTimeoutPassed() {
    Calls calls = new Calls(1, 2);
    assertThatThrownBy(() -> calls.retrying(20, () -> {
      throw Status.UNAVAILABLE.withDescription("down").asRuntimeException();
    })).isInstanceOf(BrokerUnavailableException.class);
  }

  @Test
  void aFailureThatIsNotRetriableIsThrownAtOnce() {
    Calls calls = new Calls(1, 2);
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(() -> calls.retrying(60_000, () -> {
      attempts.incrementAndGet();
      throw Status.INVALID_ARGUMENT.withDescription("bad").asRuntimeException();
    })).isInstanceOf(InvalidRequestException.class);
    assertThat(attempts).hasValue(1);
  }

  @Test
  void aRetriableFailureOtherThanAnUnreachableBrokerIsTheCallersToRetry() {
    Calls calls = new Calls(1, 2);
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(() -> calls.retrying(60_000, () -> {
      attempts.incrementAndGet();
      throw new UnknownPartitionException("UNKNOWN_PARTITION", "no partition 9");
    })).isInstanceOf(UnknownPartitionException.class);
    assertThat(attempts).hasValue(1);
  }

  @Test
  void wakeupEndsASleepFromAnotherThreadAndIsThrownOnce() throws Exception {
    Calls calls = new Calls(1, 2);
    Thread waker = new Thread(() -> {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        return;
      }
      calls.wakeup();
    });
    waker.start();
    assertThatThrownBy(() -> calls.sleep(600_000)).isInstanceOf(WakeupException.class);
    waker.join();
    calls.checkWakeup(); // consumed: does not throw again
  }

  @Test
  void aWakeupBeforeACallIsThrownByThatCall() {
    Calls calls = new Calls(1, 2);
    calls.wakeup();
    assertThatThrownBy(() -> calls.once(() -> "never")).isInstanceOf(WakeupException.class);
    assertThat(calls.once(() -> "then fine")).isEqualTo("then fine");
  }
}
