package io.brook.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.Serdes;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.ProducerConfig;
import io.brook.client.producer.ProducerRecord;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client logs through System.Logger, so an application routes it with the usual bridge: here
 * slf4j-jdk-platform-logging (a test dependency of this module) hands it to SLF4J, whose provider
 * on this classpath is slf4j-simple, writing "[thread] LEVEL logger - message" to System.err.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClientLoggingIT {
  @TempDir Path dir;

  @Test
  void theProducersLineAboutABrokenStreamReachesSlf4j() throws Exception {
    assertThat(System.getLogger("io.brook.client.producer.Sender").getClass().getName())
        .as("System.Logger is SLF4J's").startsWith("org.slf4j.");
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      TestTopics.create(broker.channel(), "t", 1);
      try (BrookProducer<String, String> producer = new BrookProducer<>(ProducerConfig.builder()
          .broker(broker.address()).build(), Serdes.stringSerializer(), Serdes.stringSerializer());
          StderrCapture log = new StderrCapture()) {
        producer.sendSync(new ProducerRecord<>("t", "v")); // the stream is open and answered
        broker.kill9();
        for (int i = 0; i < 300 && log.lines("produce stream to").isEmpty(); i++) {
          Thread.sleep(100);
        }
        assertThat(log.lines("] INFO io.brook.client.producer.Sender - produce stream to 127.0.0.1:"))
            .anySatisfy(l -> assertThat(l).containsPattern("127\\.0\\.0\\.1:\\d+ ended \\(UNAVAILABLE"));
      }
    }
  }
}
