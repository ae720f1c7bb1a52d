package io.brook.client.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.OffsetAndMetadata;
import io.brook.client.consumer.OffsetResetStrategy;
import io.brook.client.errors.BrookException;
import io.brook.client.errors.BrookTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What close does with commits it cannot confirm: the broker is frozen (SIGSTOP: connected, answering
 * nothing), and every commit requested before close is confirmed or its failure reaches the caller.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConsumerCloseIT {
  @TempDir Path dir;
  BrokerProcess broker;

  @BeforeEach
  void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    TestTopics.create(broker.channel(), "t", 1);
    TestTopics.produceValues(broker.channel(), "t", 0, 10, "v");
  }

  @AfterEach
  void stop() throws Exception {
    signal("CONT");
    broker.close();
  }

  /** SIGSTOP or SIGCONT to the broker process. */
  void signal(String name) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(broker.pid())).inheritIO().start();
    assertThat(kill.waitFor()).as("kill -%s", name).isZero();
  }

  BrookConsumer<String, String> member(boolean autoCommit) {
    BrookConsumer<String, String> c = new BrookConsumer<>(ConsumerConfig.builder().broker(broker.address())
        .groupId("g").autoOffsetReset(OffsetResetStrategy.EARLIEST).enableAutoCommit(autoCommit)
        .requestTimeout(Duration.ofSeconds(1)).fetchMaxWait(Duration.ofMillis(100)).build(),
        Serdes.stringDeserializer(), Serdes.stringDeserializer());
    c.subscribe(List.of("t"));
    List<ConsumerRecord<String, String>> got = new ArrayList<>();
    for (int i = 0; i < 100 && got.size() < 10; i++) {
      c.poll(Duration.ofMillis(200)).forEach(got::add);
    }
    assertThat(got).hasSize(10);
    return c;
  }

  /** An async commit still unanswered when close's timeout passes: its callback is told, once. */
  @Test
  void anAsyncCommitUnansweredAtCloseIsReportedToItsCallback() throws Exception {
    BrookConsumer<String, String> c = member(false);
    List<BrookException> outcomes = new ArrayList<>();
    signal("STOP");
    c.commitAsync(Map.of(new TopicPartition("t", 0), new OffsetAndMetadata(10)), (offsets, e) -> outcomes.add(e));
    c.close(Duration.ofMillis(500));
    assertThat(outcomes).singleElement().isInstanceOf(BrookTimeoutException.class)
        .satisfies(e -> assertThat(e.getMessage()).contains("whether it was stored is unknown"));
  }

  /** The auto commit at close fails (no answer within the timeout): close throws it. */
  @Test
  void aFailedCommitAtCloseIsThrown() throws Exception {
    BrookConsumer<String, String> c = member(true);
    signal("STOP");
    assertThatThrownBy(() -> c.close(Duration.ofSeconds(2))).isInstanceOf(BrookTimeoutException.class);
  }
}
