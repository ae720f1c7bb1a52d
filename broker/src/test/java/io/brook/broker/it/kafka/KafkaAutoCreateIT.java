package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.BrokerProcess;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.ListTopicsRequest;
import io.brook.protocol.v1.TopicDescription;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topic auto-creation by Kafka Metadata requests on the real broker process: only when the request
 * allows it, within max.topics and the disk guard; and transactions refused at once.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaAutoCreateIT {
  @TempDir Path dir;

  static <T extends ApiMessage> T call(BrokerProcess broker, ApiKeys key, short version, ApiMessage request,
      T response) throws Exception {
    try (KafkaWire wire = new KafkaWire(broker.kafkaPort())) {
      wire.write(KafkaWire.frame(key, version, 5, request));
      ByteBufferAccessor r = new ByteBufferAccessor(wire.readFrame());
      assertThat(new ResponseHeaderData(r, key.responseHeaderVersion(version)).correlationId()).isEqualTo(5);
      response.read(r, version);
      return response;
    }
  }

  static short metadata(BrokerProcess broker, String topic, boolean allowCreate) throws Exception {
    MetadataResponseData r = call(broker, ApiKeys.METADATA, (short) 12, new MetadataRequestData()
        .setAllowAutoTopicCreation(allowCreate).setTopics(List.of(new MetadataRequestTopic().setName(topic))),
        new MetadataResponseData());
    return r.topics().find(topic).errorCode();
  }

  static List<String> topics(BrokerProcess broker) {
    List<String> names = new ArrayList<>();
    for (TopicDescription t : AdminServiceGrpc.newBlockingStub(broker.channel())
        .listTopics(ListTopicsRequest.getDefaultInstance()).getTopicsList()) {
      names.add(t.getName());
    }
    return names;
  }

  @Test
  void createdOnlyWhenAllowedAndWithinMaxTopics() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set", "max.topics=2")) {
      assertThat(metadata(broker, "not-asked", false)).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
      assertThat(topics(broker)).isEmpty();

      assertThat(metadata(broker, "first", true)).isEqualTo(Errors.NONE.code());
      assertThat(metadata(broker, "second", true)).isEqualTo(Errors.NONE.code());
      assertThat(metadata(broker, "third", true)).isEqualTo(Errors.POLICY_VIOLATION.code()); // max.topics=2
      assertThat(topics(broker)).containsExactlyInAnyOrder("first", "second");
      assertThat(broker.currentStartLog()).contains("auto-creation of topic third refused").contains("max.topics");
    }
  }

  @Test
  void refusedWhileTheDiskIsLow() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set",
        "disk.free.min.bytes=" + (1L << 60))) {
      assertThat(metadata(broker, "auto", true)).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());
      assertThat(topics(broker)).isEmpty();
    }
  }

  @Test
  void offByConfigNothingIsCreated() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set", "auto.create.topics.enable=false")) {
      assertThat(metadata(broker, "auto", true)).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
      assertThat(topics(broker)).isEmpty();

      // A transactional id is refused at once, as fatal: no transactions in Brook.
      InitProducerIdResponseData init = call(broker, ApiKeys.INIT_PRODUCER_ID, (short) 5,
          new InitProducerIdRequestData().setTransactionalId("tx").setTransactionTimeoutMs(60_000),
          new InitProducerIdResponseData());
      assertThat(init.errorCode()).isEqualTo(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code());
      assertThat(broker.currentStartLog()).contains("Refused transactional id 'tx'");

      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.kafkaAddress());
      p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx");
      p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 60_000);
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
          new StringSerializer())) {
        // kafka-clients asks for a transaction coordinator first: FindCoordinator refuses the transaction key
        // type as InitProducerId refuses a transactional id, fatal to the client, so it fails at once.
        assertThatThrownBy(producer::initTransactions)
            .isInstanceOf(org.apache.kafka.common.errors.TransactionalIdAuthorizationException.class);
      }
    }
  }
}
