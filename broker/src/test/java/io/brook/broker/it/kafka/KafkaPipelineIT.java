package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deep pipelines against the real broker process, on a small heap (64 MiB) so that a listener that
 * read without bound would run out of memory: librdkafka's 1,000,000 requests in flight answered in
 * order, and a client that writes and never reads held at a bounded cost while others are served.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class KafkaPipelineIT {
  static final int PIPELINED = 1_000_000;
  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), Map.of(), List.of("-Xmx64m"));
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      assertThat(broker.isAlive()).isTrue();
      broker.close();
    }
  }

  @Test
  void aMillionPipelinedRequestsAreAnsweredInOrder() throws Exception {
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
        try {
          OutputStream out = new BufferedOutputStream(wire.socket.getOutputStream(), 1 << 16);
          for (int i = 0; i < PIPELINED; i++) {
            out.write(KafkaWire.apiVersions((short) 0, i));
          }
          out.flush();
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      for (int i = 0; i < PIPELINED; i++) {
        ByteBufferAccessor r = new ByteBufferAccessor(wire.readFrame());
        int correlationId = r.readInt();
        if (correlationId != i) {
          throw new AssertionError("answer " + i + " out of request order: correlation id " + correlationId);
        }
        ApiVersionsResponseData data = new ApiVersionsResponseData(r, (short) 0);
        if (data.errorCode() != Errors.NONE.code()) {
          throw new AssertionError("answer " + i + ": error " + data.errorCode());
        }
      }
      writer.get(60, TimeUnit.SECONDS);
    }
    stillServed();
  }

  @Test
  void aClientThatNeverReadsIsHeldAtABoundedCost() throws Exception {
    AtomicInteger written = new AtomicInteger();
    KafkaWire stuck = new KafkaWire(broker.kafkaPort());
    Thread writer = new Thread(() -> {
      try {
        OutputStream out = stuck.socket.getOutputStream();
        for (int i = 0; i < PIPELINED; i++) {
          out.write(KafkaWire.apiVersions((short) 0, i));
          written.incrementAndGet();
        }
      } catch (IOException e) {
        // closed by the test below
      }
    }, "never-reads");
    writer.setDaemon(true);
    writer.start();
    try {
      // The broker stops reading once its answers pile up, so the writer blocks well before a million:
      // wait (bounded) until it makes no progress over a while, while others are served meanwhile.
      int last = -1;
      for (int round = 0; round < 120 && written.get() != last; round++) {
        last = written.get();
        stillServed();
        Thread.sleep(500);
      }
      assertThat(written.get()).as("requests the broker took before it stopped reading").isLessThan(PIPELINED);
      assertThat(writer.isAlive()).as("the writer is blocked, not done").isTrue();
      stillServed();
      assertThat(broker.isAlive()).isTrue();
    } finally {
      stuck.close();
      writer.join(30_000);
    }
    stillServed();
  }

  static void stillServed() throws IOException {
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      wire.write(KafkaWire.apiVersions((short) 3, 42));
      assertThat(wire.readApiVersions((short) 3).correlationId()).isEqualTo(42);
    }
  }
}
