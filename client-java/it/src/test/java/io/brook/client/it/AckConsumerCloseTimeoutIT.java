package io.brook.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.ack.AckConsumer;
import io.brook.client.ack.AckConsumerConfig;
import io.brook.client.ack.AckRecord;
import io.brook.client.ack.SettleFailure;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.NewGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code AckConsumer.close(Duration)} bounds close when the broker cannot let it finish, and the
 * handler hears of every settle close could not get applied. The consumers' requestTimeout is 60 s,
 * so a close that used it instead of its own 500 ms would take a minute (the 10 s bound below only
 * tells the two apart).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AckConsumerCloseTimeoutIT {
  static final Duration LONG = Duration.ofSeconds(60);

  @TempDir Path dir;
  BrokerProcess broker;
  final ConcurrentLinkedQueue<SettleFailure> failures = new ConcurrentLinkedQueue<>();

  @BeforeEach
  void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    TestTopics.create(broker.channel(), "jobs", 1);
    TestTopics.produceValues(broker.channel(), "jobs", 0, 10, "job");
    try (BrookAdmin admin = BrookAdmin.create(broker.address())) {
      admin.createGroup(NewGroup.ackMode("workers").withConfig("auto.offset.reset", "earliest"));
    }
  }

  @AfterEach
  void stop() throws Exception {
    broker.close();
  }

  /** A consumer that holds its settles until close (no timed flush), with all ten records polled. */
  AckConsumer<String, String> consumerWithTenRecords(List<AckRecord<String, String>> got) {
    AckConsumer<String, String> c = AckConsumer.ofStrings(AckConsumerConfig.builder().broker(broker.address())
        .group("workers").topics("jobs").requestTimeout(LONG).ackFlushInterval(LONG)
        .settleFailureHandler(failures::add).build());
    for (int i = 0; i < 200 && got.size() < 10; i++) {
      got.addAll(c.poll(Duration.ofMillis(100)));
    }
    assertThat(got).hasSize(10);
    return c;
  }

  /** Closes with 500 ms; answers how long it took. */
  static Duration closeTimed(AckConsumer<?, ?> c) {
    long start = System.nanoTime();
    c.close(Duration.ofMillis(500));
    return Duration.ofNanos(System.nanoTime() - start);
  }

  /**
   * The broker frozen (SIGSTOP) with the stream open: close sends the acks and half-closes, the end
   * never comes; at its timeout close gives up and tells the handler their outcome is unknown.
   */
  @Test
  void aFrozenBrokerCannotHoldCloseBeyondItsTimeout() throws Exception {
    List<AckRecord<String, String>> got = new ArrayList<>();
    AckConsumer<String, String> c = consumerWithTenRecords(got);
    broker.freeze();
    got.forEach(c::ack);

    assertThat(closeTimed(c)).as("close(500 ms) returned, not after requestTimeout").isLessThan(Duration.ofSeconds(10));
    assertThat(failures).singleElement().satisfies(f -> {
      assertThat(f.reason()).isEqualTo(SettleFailure.OUTCOME_UNKNOWN);
      assertThat(f.firstOffset()).isZero();
      assertThat(f.lastOffset()).isEqualTo(9);
      assertThat(f.error().getMessage()).contains("the broker did not end the stream within PT0.5S");
    });
  }

  /**
   * The broker killed: no stream comes within close's timeout, so the acks are not sent, and the
   * handler is told so.
   */
  @Test
  void aDeadBrokerCannotHoldCloseBeyondItsTimeout() throws Exception {
    List<AckRecord<String, String>> got = new ArrayList<>();
    AckConsumer<String, String> c = consumerWithTenRecords(got);
    broker.kill9();
    for (int i = 0; i < 2000 && c.memberId() != null; i++) {
      Thread.sleep(10); // until the consumer saw the stream break: the acks then wait for a stream
    }
    assertThat(c.memberId()).as("the consumer's stream is gone").isNull();
    got.forEach(c::ack);

    assertThat(closeTimed(c)).as("close(500 ms) returned, not after requestTimeout").isLessThan(Duration.ofSeconds(10));
    assertThat(failures).singleElement().satisfies(f -> {
      assertThat(f.reason()).isEqualTo(SettleFailure.NOT_SENT);
      assertThat(f.firstOffset()).isZero();
      assertThat(f.lastOffset()).isEqualTo(9);
      assertThat(f.error().getMessage()).contains("no stream to the broker within PT0.5S");
    });
  }
}
