package io.brook.perf.harness;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The harness finds Brook's Kafka listener, bound on a port of the broker's choosing, in its ready line. */
class BrookServerTest {
  @Test
  void kafkaPortFromTheReadyLine() {
    assertThat(BrookServer.kafkaPortOf("2026-11-27T11:30:35.101Z [INFO] Broker - Brook ready: gRPC on "
        + "127.0.0.1:44045, HTTP on 127.0.0.1:35121, Kafka on 127.0.0.1:40123, data in /tmp/d")).isEqualTo(40123);
  }

  @Test
  void noPortWhenTheListenerIsOff() {
    assertThat(BrookServer.kafkaPortOf("Brook ready: gRPC on 127.0.0.1:44045, HTTP on 127.0.0.1:35121, Kafka off, "
        + "data in /tmp/d")).isZero();
  }
}
