package io.brook.client.it;

import static io.brook.client.it.ConsumerIT.pollUntil;
import static io.brook.client.it.TestTopics.create;
import static io.brook.client.it.TestTopics.produceValues;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.Serdes;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.OffsetResetStrategy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23, defect 4: subscribing to a topic that does not exist is not silent. The client logs
 * through System.Logger, routed to SLF4J on this module's classpath as an application would route
 * it (see {@link StderrCapture}): the lines counted are those its log would get.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConsumerUnknownTopicIT {
  @TempDir Path dir;
  BrokerProcess broker;
  BrookAdmin admin;
  StderrCapture log;

  @BeforeEach
  void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    admin = BrookAdmin.create(broker.address());
    log = new StderrCapture();
  }

  @AfterEach
  void stop() throws Exception {
    log.close();
    admin.close();
    broker.close();
  }

  BrookConsumer<String, String> consumer(String group) {
    return new BrookConsumer<>(ConsumerConfig.builder().broker(broker.address()).groupId(group)
        .sessionTimeout(Duration.ofSeconds(6)).fetchMaxWait(Duration.ofMillis(200))
        .autoOffsetReset(OffsetResetStrategy.EARLIEST).build(), Serdes.stringDeserializer(),
        Serdes.stringDeserializer());
  }

  /** Warnings about the topic logged on this thread: by the consumer it polls, not by the other member. */
  /** This thread's consumer's warnings (the other member, on another thread, warns too). */
  long warningsAbout(String topic) {
    return log.lines("[" + Thread.currentThread().getName() + "] WARN io.brook.client.consumer.BrookConsumer - "
        + "subscribed topic " + topic + " of group").size();
  }

  static long from(List<ConsumerRecord<String, String>> records, String topic) {
    return records.stream().filter(r -> r.topic().equals(topic)).count();
  }

  @Test
  void aMissingTopicIsWarnedAboutOnceListedAndConsumedOnceCreated() throws Exception {
    create(broker.channel(), "present", 1);
    produceValues(broker.channel(), "present", 0, 2, "p");
    ExecutorService other = Executors.newSingleThreadExecutor();
    try (BrookConsumer<String, String> c = consumer("g")) {
      c.subscribe(List.of("present", "later"));
      pollUntil(c, read -> from(read, "present") == 2);
      assertThat(c.unknownTopics()).containsExactly("later");

      // Another member joins and leaves: two more joins while the topic is still missing.
      Future<?> joined = other.submit(() -> {
        try (BrookConsumer<String, String> o = consumer("g")) {
          o.subscribe(List.of("present", "later"));
          for (int i = 0; i < 300 && o.groupMetadata().generation() < 2; i++) {
            o.poll(Duration.ofMillis(100));
          }
          assertThat(o.groupMetadata().generation()).isGreaterThanOrEqualTo(2);
        }
        return null;
      });
      for (int i = 0; i < 300 && (!joined.isDone() || c.groupMetadata().generation() < 3); i++) {
        c.poll(Duration.ofMillis(100));
      }
      joined.get();
      assertThat(c.groupMetadata().generation()).as("generations: joined, with the other, without it")
          .isGreaterThanOrEqualTo(3);
      assertThat(warningsAbout("later")).as("warnings about the missing topic").isEqualTo(1);

      create(broker.channel(), "later", 2);
      produceValues(broker.channel(), "later", 0, 3, "m");
      produceValues(broker.channel(), "later", 1, 3, "n");
      pollUntil(c, read -> from(read, "later") == 6);
      assertThat(c.unknownTopics()).isEmpty();

      admin.deleteTopic("later");
      pollUntil(c, read -> c.unknownTopics().contains("later"));
      assertThat(warningsAbout("later")).as("warnings once the topic was deleted").isEqualTo(2);
    } finally {
      other.shutdownNow();
    }
  }
}
