package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.it.BrokerProcess;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka listener of the real broker process: ApiVersions, and every kind of bad input (a clear
 * answer or a closed connection, the broker unharmed: each test ends by checking a new connection
 * is served).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaListenerIT {
  static final int MAX_REQUEST_BYTES = 1 << 20;
  @TempDir static Path dir;
  static BrokerProcess broker;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "max.request.bytes=" + MAX_REQUEST_BYTES);
  }

  @AfterAll
  static void stop() throws Exception {
    if (broker != null) {
      assertThat(broker.isAlive()).isTrue();
      broker.close();
    }
  }

  /** A new connection gets its ApiVersions answer: the broker is unharmed by what a test did. */
  static void stillServed() throws IOException {
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      wire.write(KafkaWire.apiVersions((short) 3, 42));
      KafkaWire.Answer<ApiVersionsResponseData> answer = wire.readApiVersions((short) 3);
      assertThat(answer.correlationId()).isEqualTo(42);
      assertThat(answer.data().errorCode()).isEqualTo(Errors.NONE.code());
    }
  }

  @Test
  void apiVersionsListsTheServedApisWithTheirRanges() throws Exception {
    for (short version = 0; version <= ApiKeys.API_VERSIONS.latestVersion(); version++) {
      try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
        wire.write(KafkaWire.apiVersions(version, 7 + version));
        KafkaWire.Answer<ApiVersionsResponseData> answer = wire.readApiVersions(version);
        assertThat(answer.correlationId()).isEqualTo(7 + version);
        assertThat(answer.bytesLeft()).as("the whole frame is the answer at v" + version).isZero();
        assertThat(answer.data().errorCode()).isEqualTo(Errors.NONE.code());
        ApiVersion own = answer.data().apiKeys().find(ApiKeys.API_VERSIONS.id);
        assertThat(own).isNotNull();
        assertThat(own.minVersion()).isEqualTo(ApiKeys.API_VERSIONS.oldestVersion());
        assertThat(own.maxVersion()).isEqualTo(ApiKeys.API_VERSIONS.latestVersion());
      }
    }
  }

  @Test
  void apiVersionsAtAnUnknownVersionIsAnsweredAtV0WithTheRanges() throws Exception {
    short tooNew = (short) (ApiKeys.API_VERSIONS.latestVersion() + 1);
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      // A newer client's request: its header is v2 (flexible), its body unknown to the broker.
      wire.write(KafkaWire.frame(ApiKeys.API_VERSIONS.id, tooNew, (short) 2, 11,
          new org.apache.kafka.common.message.ApiVersionsRequestData().setClientSoftwareName("future"),
          ApiKeys.API_VERSIONS.latestVersion()));
      KafkaWire.Answer<ApiVersionsResponseData> answer = wire.readApiVersions((short) 0);
      assertThat(answer.correlationId()).isEqualTo(11);
      assertThat(answer.bytesLeft()).as("a v0 answer, header v0").isZero();
      assertThat(answer.data().errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
      assertThat(answer.data().apiKeys().find(ApiKeys.API_VERSIONS.id).maxVersion())
          .isEqualTo(ApiKeys.API_VERSIONS.latestVersion());
      // The connection stays open: the client retries at a version listed, as the Java client does.
      wire.write(KafkaWire.apiVersions((short) 3, 12));
      assertThat(wire.readApiVersions((short) 3).correlationId()).isEqualTo(12);
    }
  }

  @Test
  void aFrameAboveMaxRequestBytesClosesTheConnection() throws Exception {
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      wire.write(ByteBuffer.allocate(4).putInt(MAX_REQUEST_BYTES + 1).array()); // refused on its length alone
      assertThat(wire.closedByBroker()).isTrue();
    }
    // A frame of exactly max.request.bytes is read whole (an ApiVersions request, padded: Kafka ignores the rest).
    byte[] request = KafkaWire.apiVersions((short) 3, 5);
    ByteBuffer exact = ByteBuffer.allocate(4 + MAX_REQUEST_BYTES).putInt(MAX_REQUEST_BYTES)
        .put(request, 4, request.length - 4);
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      wire.write(exact.array());
      assertThat(wire.readApiVersions((short) 3).correlationId()).isEqualTo(5);
    }
    assertThat(refusals("oversize_frame")).isGreaterThanOrEqualTo(1);
    stillServed();
  }

  @Test
  void garbageBytesCloseTheConnection() throws Exception {
    Random random = new Random(25);
    List<byte[]> garbage = new ArrayList<>();
    garbage.add("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes()); // a length of 1.2 GB: over the limit
    garbage.add(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xf0, 1, 2, 3}); // a negative length
    garbage.add(new byte[] {0, 0, 0, 2, 0, 18}); // a frame too short for a header
    garbage.add(new byte[] {0, 0, 0, 12, 0, 18, 0, 3, 0, 0, 0, 1, 0x7f, 0x7f, 0x7f, 0x7f}); // a client id past the end
    for (int i = 0; i < 20; i++) {
      byte[] b = new byte[64];
      random.nextBytes(b);
      b[0] = 0; // a length under the limit, so the bytes after it are decoded as a request
      b[1] = 0;
      b[2] = 0;
      b[3] = 60;
      garbage.add(b);
    }
    for (byte[] b : garbage) {
      try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
        wire.write(b);
        assertThat(wire.closedByBroker()).as("closed after %s", java.util.Arrays.toString(b)).isTrue();
      }
    }
    stillServed();
  }

  @Test
  void aHalfSentFrameThenCloseLeavesTheBrokerUnharmed() throws Exception {
    byte[] request = KafkaWire.apiVersions((short) 3, 9);
    for (int cut = 1; cut < request.length; cut += 3) {
      try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
        wire.write(java.util.Arrays.copyOf(request, cut));
      }
    }
    stillServed();
  }

  @Test
  void anUnknownApiKeyClosesTheConnection() throws Exception {
    for (short key : new short[] {999, -1, ApiKeys.ELECT_LEADERS.id}) { // not a key; negative; a key not served
      try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
        wire.write(KafkaWire.frame(key, (short) 0, (short) 1, 3, null, (short) 0));
        assertThat(wire.closedByBroker()).as("closed after API key " + key).isTrue();
      }
    }
    assertThat(refusals("unknown_api")).isGreaterThanOrEqualTo(3);
    stillServed();
  }

  @Test
  void aVersionOutOfRangeClosesTheConnection() throws Exception {
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      wire.write(KafkaWire.frame(ApiKeys.API_VERSIONS.id, (short) -1, (short) 1, 3, null, (short) 0));
      assertThat(wire.closedByBroker()).isTrue();
    }
    // An API that is served (or not) at a version kafka-clients does not know: closed either way.
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      wire.write(KafkaWire.frame(ApiKeys.METADATA.id, (short) 99, (short) 2, 3, new MetadataRequestData(),
          ApiKeys.METADATA.latestVersion()));
      assertThat(wire.closedByBroker()).isTrue();
    }
    assertThat(refusals("unsupported_version")).isGreaterThanOrEqualTo(1);
    stillServed();
  }

  @Test
  void aThousandIdleConnectionsThenARequestIsServed() throws Exception {
    List<KafkaWire> idle = new ArrayList<>();
    try {
      for (int i = 0; i < 1000; i++) {
        idle.add(new KafkaWire(broker.kafkaPort()));
      }
      stillServed();
      // The idle ones are connections too: the last one opened is served as well.
      KafkaWire last = idle.get(idle.size() - 1);
      last.write(KafkaWire.apiVersions((short) 3, 77));
      assertThat(last.readApiVersions((short) 3).correlationId()).isEqualTo(77);
      assertThat(Scrape.get(broker.httpPort(), "/stats")).containsPattern("\"kafka\":(1\\d{3})");
    } finally {
      for (KafkaWire w : idle) {
        w.close();
      }
    }
  }

  static double refusals(String reason) throws Exception {
    return Scrape.metric(broker.httpPort(), "brook_kafka_refused_connections_total{reason=\"" + reason + "\"}");
  }
}
