package io.brook.client.it;

import static io.brook.client.it.TestTopics.create;
import static io.brook.client.it.TestTopics.produceValues;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.Serdes;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.PartitionInfo;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.errors.UnknownTopicException;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.ProducerConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** partitionsFor on the producer and the consumer: the admin's view of a topic's partitions. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PartitionsForIT {
  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void producerAndConsumerDescribeEveryPartitionAsTheAdminDoes() {
    create(broker.channel(), "described", 3);
    produceValues(broker.channel(), "described", 1, 4, "v");
    try (BrookProducer<String, String> producer = new BrookProducer<>(ProducerConfig.builder()
            .broker(broker.address()).build(), Serdes.stringSerializer(), Serdes.stringSerializer());
        BrookConsumer<String, String> consumer = new BrookConsumer<>(ConsumerConfig.builder()
            .broker(broker.address()).build(), Serdes.stringDeserializer(), Serdes.stringDeserializer());
        BrookAdmin admin = BrookAdmin.create(broker.address())) {
      List<PartitionInfo> fromProducer = producer.partitionsFor("described");
      List<PartitionInfo> fromConsumer = consumer.partitionsFor("described");
      assertThat(fromProducer).extracting(PartitionInfo::partition).containsExactly(0, 1, 2);
      assertThat(fromProducer).extracting(PartitionInfo::endOffset).containsExactly(0L, 4L, 0L);
      assertThat(fromConsumer).isEqualTo(fromProducer);
      assertThat(fromConsumer).isEqualTo(admin.describeTopic("described").partitions());

      producer.sendSync(new io.brook.client.producer.ProducerRecord<>("described", 2, null, "x"));
      assertThat(producer.partitionsFor("described").get(2).endOffset()).as("read from the broker each time")
          .isEqualTo(1);
    }
  }

  @Test
  void anUnknownTopicIsAnUnknownTopicException() {
    try (BrookProducer<String, String> producer = new BrookProducer<>(ProducerConfig.builder()
            .broker(broker.address()).build(), Serdes.stringSerializer(), Serdes.stringSerializer());
        BrookConsumer<String, String> consumer = new BrookConsumer<>(ConsumerConfig.builder()
            .broker(broker.address()).build(), Serdes.stringDeserializer(), Serdes.stringDeserializer())) {
      assertThatThrownBy(() -> producer.partitionsFor("no-such-topic")).isInstanceOf(UnknownTopicException.class)
          .hasMessageContaining("no-such-topic");
      assertThatThrownBy(() -> consumer.partitionsFor("no-such-topic")).isInstanceOf(UnknownTopicException.class)
          .hasMessageContaining("no-such-topic");
    }
  }
}
