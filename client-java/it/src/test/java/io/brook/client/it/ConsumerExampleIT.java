package io.brook.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.it.examples.ConsumerExample;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The documented consumer example, run against a real broker: it prints what it should, and commits it. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsumerExampleIT {
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

  static List<String> run() {
    return ExamplesIT.run(() -> ConsumerExample.main(new String[] {broker.address()}));
  }

  @Test
  void theExamplePrintsEveryRecordOnceAndASecondRunOnlyWhatIsNew() {
    TestTopics.create(broker.channel(), "greetings", 1);
    TestTopics.produce(broker.channel(), "greetings", 0, List.of(TestTopics.record("en", "hello", 1L),
        TestTopics.record("fr", "bonjour", 2L)));

    assertThat(run()).containsExactly("greetings-0@0 en=hello", "greetings-0@1 fr=bonjour");

    TestTopics.produce(broker.channel(), "greetings", 0, List.of(TestTopics.record(null, "hi", 3L)));
    assertThat(run()).as("the first run committed what it printed").containsExactly("greetings-0@2 null=hi");
  }
}
