package io.brook.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.ack.AckConsumer;
import io.brook.client.ack.AckConsumerConfig;
import io.brook.client.ack.AckRecord;
import io.brook.client.ack.SettleFailure;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.NewGroup;
import io.brook.client.errors.AlreadySettledException;
import io.brook.client.errors.NotLeasedException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23, defect 7: {@link AckConsumer#flush()} reports the outcome of every settle queued before
 * it, also those the background sender put on the stream, against the real broker.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class AckFlushIT {
  @TempDir Path dir;
  BrokerProcess broker;
  TestData data;
  BrookAdmin admin;
  final List<AutoCloseable> closeLater = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    data = new TestData(broker.channel());
    admin = BrookAdmin.create(broker.address());
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : closeLater) {
      c.close();
    }
    admin.close();
    broker.close();
  }

  AckConsumer<String, String> consumer(AckConsumerConfig config) {
    AckConsumer<String, String> c = AckConsumer.ofStrings(config);
    closeLater.add(c);
    return c;
  }

  /** Waits (bounded) until the background sender sent more than {@code n} settle messages. */
  static void awaitSettleMessages(AckConsumer<?, ?> c, long n) throws InterruptedException {
    for (int i = 0; i < 2000 && c.stats().settleMessages() <= n; i++) {
      Thread.sleep(10);
    }
    assertThat(c.stats().settleMessages()).as("settle messages sent in the background").isGreaterThan(n);
  }

  /** A refusal (not leased, or already settled) of offset {@code o} of topic t, partition 0, is among them. */
  static void assertRefused(List<SettleFailure> failures, long... offsets) {
    for (long o : offsets) {
      assertThat(failures).as("flush's failures for offset " + o).anySatisfy(f -> {
        assertThat(f.topicPartition().topic()).isEqualTo("t");
        assertThat(f.firstOffset()).isLessThanOrEqualTo(o);
        assertThat(f.lastOffset()).isGreaterThanOrEqualTo(o);
        assertThat(f.error()).isInstanceOfAny(NotLeasedException.class, AlreadySettledException.class);
      });
    }
  }

  /**
   * Topic t with one record, and an ack consumer of it whose settles go out in one background
   * message of two (the batch is full at two, the interval never comes); its failure handler adds
   * to {@code handled}.
   */
  AckConsumer<String, String> consumerOfOneRecord(ConcurrentLinkedQueue<SettleFailure> handled,
      UnaryOperator<AckConsumerConfig.Builder> more) throws Exception {
    data.createTopic("t", 1);
    admin.createGroup(NewGroup.ackMode("g").withConfig("auto.offset.reset", "earliest"));
    data.produceValues("t", 0, 1, "v");
    return consumer(more.apply(AckConsumerConfig.builder().broker(broker.address()).group("g").topics("t")
        .ackMaxBatch(2).ackFlushInterval(Duration.ofMinutes(1)).settleFailureHandler(handled::add)).build());
  }

  @Test
  void flushReportsARefusalOfASettleTheBackgroundSenderSent() throws Exception {
    ConcurrentLinkedQueue<SettleFailure> handled = new ConcurrentLinkedQueue<>();
    AckConsumer<String, String> c = consumerOfOneRecord(handled, b -> b);
    AckRecord<String, String> r = AckConsumerIT.take(c, 1).get(0);
    c.reject(r); // then the ack: whichever the broker applies first, it refuses the other
    c.ack(r);
    awaitSettleMessages(c, 0); // flush finds nothing queued

    assertRefused(c.flush(), 0);
    assertThat(c.flush()).as("a second flush: each failure is returned once").isEmpty();
    assertThat(handled).as("the failure handler heard it too").hasSize(1);
  }

  @Test
  void flushReportsRefusalsOfAcksQueuedAcrossABrokerRestartAndSentInTheBackground() throws Exception {
    data.createTopic("t", 1);
    // The restarted broker dead-letters the records delivered once instead of leasing them again,
    // so it refuses every ack of them.
    admin.createGroup(NewGroup.ackMode("g").withConfig("auto.offset.reset", "earliest")
        .withConfig("max.delivery.attempts", "1"));
    data.produceValues("t", 0, 3, "v");
    AckConsumer<String, String> c = consumer(AckConsumerConfig.builder().broker(broker.address()).group("g")
        .topics("t").reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(500)).settleFailureHandler(f -> { })
        .build());
    List<AckRecord<String, String>> records = AckConsumerIT.take(c, 3);
    long before = c.stats().settleMessages();
    long reconnects = c.stats().reconnects();

    broker.kill9();
    // Until the consumer has seen its stream end, an ack may still go out on the dead stream, whose
    // outcome is then rightly unknown: wait for it, so the acks are queued with no stream.
    for (int i = 0; i < 2000 && c.stats().reconnects() <= reconnects; i++) {
      Thread.sleep(10);
    }
    assertThat(c.stats().reconnects()).as("the consumer saw its stream end").isGreaterThan(reconnects);
    records.forEach(c::ack); // queued: no stream to send them on
    broker.restartOnSamePort();
    awaitSettleMessages(c, before); // sent in the background on the new stream (a new member id)

    assertRefused(c.flush(), 0, 1, 2);
  }

  @Test
  void aSettleFlushGaveUpOnIsNotReturnedAgainWhenTheBrokerAnswersLater() throws Exception {
    ConcurrentLinkedQueue<SettleFailure> handled = new ConcurrentLinkedQueue<>();
    AckConsumer<String, String> c = consumerOfOneRecord(handled, b -> b.requestTimeout(Duration.ofSeconds(1)));
    AckRecord<String, String> r = AckConsumerIT.take(c, 1).get(0);
    broker.freeze(); // the message goes out, the broker answers only once thawed
    try {
      c.reject(r);
      c.ack(r);
      awaitSettleMessages(c, 0);
      List<SettleFailure> first = c.flush();
      assertThat(first).as("a flush that gave up waiting").isNotEmpty()
          .allSatisfy(f -> assertThat(f.reason()).isEqualTo(SettleFailure.OUTCOME_UNKNOWN));
    } finally {
      broker.thaw();
    }
    for (int i = 0; i < 2000 && handled.isEmpty(); i++) {
      Thread.sleep(10);
    }
    assertThat(handled).as("the broker's later refusal reaches the failure handler").hasSize(1);
    assertThat(c.flush()).as("the next flush does not return the same settles again").isEmpty();
  }
}
