package io.brook.broker.disk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ActiveWritersTest {
  static final class Log {
    long end;
  }

  final AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
  final ActiveWriters<Log> active = new ActiveWriters<>(1000, nanos::get);

  int count(List<Log> logs) {
    return active.count(logs, l -> l.end);
  }

  void advanceMs(long ms) {
    nanos.addAndGet(ms * 1_000_000L);
  }

  @Test
  void aLogIsActiveFromItsFirstAppendUntilTheWindowPasses() {
    Log a = new Log();
    Log b = new Log();
    List<Log> logs = List.of(a, b);
    assertThat(count(logs)).as("first seen: nothing known to be appending").isZero();
    a.end = 10;
    advanceMs(100);
    assertThat(count(logs)).isEqualTo(1);
    advanceMs(1000);
    assertThat(count(logs)).as("a still within 1 s of its last move").isEqualTo(1);
    advanceMs(1);
    assertThat(count(logs)).isZero();
    a.end = 11;
    b.end = 1;
    assertThat(count(logs)).isEqualTo(2);
  }

  @Test
  void logsThatAreGoneAreForgotten() {
    Log a = new Log();
    count(List.of(a));
    a.end = 5;
    assertThat(count(List.of(a))).isEqualTo(1);
    assertThat(count(List.of())).isZero();
    assertThat(count(List.of(a))).as("seen anew: not active until it moves again").isZero();
  }
}
