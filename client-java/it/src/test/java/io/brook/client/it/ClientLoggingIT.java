package io.brook.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.Serdes;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.ProducerConfig;
import io.brook.client.producer.ProducerRecord;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream original = System.err;
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      TestTopics.create(broker.channel(), "t", 1);
      try (BrookProducer<String, String> producer = new BrookProducer<>(ProducerConfig.builder()
          .broker(broker.address()).build(), Serdes.stringSerializer(), Serdes.stringSerializer())) {
        producer.sendSync(new ProducerRecord<>("t", "v")); // the stream is open and answered
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
          broker.kill9();
          for (int i = 0; i < 300 && !captured.toString(StandardCharsets.UTF_8).contains("produce stream to"); i++) {
            Thread.sleep(100);
          }
        } finally {
          System.setErr(original);
        }
      }
    }
    String lines = captured.toString(StandardCharsets.UTF_8);
    original.print(lines);
    assertThat(lines).containsPattern("\\] INFO io\\.brook\\.client\\.producer\\.Sender - produce stream to "
        + "127\\.0\\.0\\.1:\\d+ ended \\(UNAVAILABLE");
  }
}
