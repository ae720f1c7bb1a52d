package io.brook.client.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.it.examples.ProducerExample;
import io.brook.protocol.v1.Record;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The producer example of docs/CLIENTS.md runs as written against a real broker. */
class ProducerExampleIT {
  @TempDir Path dir;

  @Test
  void theExampleWritesElevenOrders() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"))) {
      RawWire wire = new RawWire(broker.channel());
      wire.create("orders", 3, Map.of());
      PrintStream original = System.out;
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      try {
        ProducerExample.main(new String[] {broker.address()});
      } finally {
        System.setOut(original);
      }
      assertThat(out.toString(StandardCharsets.UTF_8)).matches("order 10 is at orders-[0-2] offset \\d+\\R");
      List<String> values = new ArrayList<>();
      for (int p = 0; p < 3; p++) {
        for (Record r : wire.readAll("orders", p)) {
          values.add(r.getValue().toStringUtf8());
        }
      }
      assertThat(values).hasSize(11).contains("order 0", "order 9", "order 10");
    }
  }
}
