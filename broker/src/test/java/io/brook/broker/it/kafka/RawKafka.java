package io.brook.broker.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Requests written by hand for the Kafka connection tests (topics by name, so no topic ids to look
 * up), and their answers read back with kafka-clients' generated classes.
 */
final class RawKafka {
  static final short FETCH_V = 12; // the last version naming topics
  static final short PRODUCE_V = 12;

  private RawKafka() {}

  /** A fetch of one partition from {@code offset}: at most {@code maxBytes}, waiting up to {@code maxWaitMs}. */
  static byte[] fetch(int correlationId, String topic, long offset, int maxBytes, int maxWaitMs) {
    FetchRequestData data = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(maxWaitMs).setMinBytes(1)
        .setMaxBytes(maxBytes).setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1);
    data.topics().add(new FetchRequestData.FetchTopic().setTopic(topic).setPartitions(List.of(
        new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(offset).setPartitionMaxBytes(maxBytes)
            .setLogStartOffset(-1).setCurrentLeaderEpoch(-1))));
    return KafkaWire.frame(ApiKeys.FETCH, FETCH_V, correlationId, data);
  }

  /** A produce (acks=1) of {@code batches}, each for partition 0 of {@code topic}, in order. */
  static byte[] produce(int correlationId, String topic, List<byte[]> batches) {
    return produce(correlationId, topic, batches, (short) 1);
  }

  /** A produce of {@code batches} with these acks (0: no answer comes). */
  static byte[] produce(int correlationId, String topic, List<byte[]> batches, short acks) {
    ProduceRequestData.TopicProduceData t = new ProduceRequestData.TopicProduceData().setName(topic);
    for (byte[] b : batches) {
      t.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0)
          .setRecords(MemoryRecords.readableRecords(ByteBuffer.wrap(b))));
    }
    ProduceRequestData data = new ProduceRequestData().setAcks(acks).setTimeoutMs(30_000);
    data.topicData().add(t);
    return KafkaWire.frame(ApiKeys.PRODUCE, PRODUCE_V, correlationId, data);
  }

  /** The next answer's body, checked to answer {@code correlationId}. */
  static ApiMessage read(KafkaWire wire, ApiKeys key, short version, int correlationId) throws IOException {
    ByteBufferAccessor r = new ByteBufferAccessor(wire.readFrame());
    ResponseHeaderData header = new ResponseHeaderData(r, key.responseHeaderVersion(version));
    assertThat(header.correlationId()).as("the answer of request " + correlationId).isEqualTo(correlationId);
    ApiMessage body = key.messageType.newResponse();
    body.read(r, version);
    return body;
  }

  static void createTopic(int port, String topic, int partitions) throws IOException {
    try (KafkaWire wire = new KafkaWire(port)) {
      CreateTopicsRequestData data = new CreateTopicsRequestData().setTimeoutMs(30_000);
      data.topics().add(new CreatableTopic().setName(topic).setNumPartitions(partitions).setReplicationFactor((short) 1));
      wire.write(KafkaWire.frame(ApiKeys.CREATE_TOPICS, (short) 7, 1, data));
      CreateTopicsResponseData answer = (CreateTopicsResponseData) read(wire, ApiKeys.CREATE_TOPICS, (short) 7, 1);
      assertThat(answer.topics().find(topic).errorCode()).as("topic " + topic + " created")
          .isEqualTo(Errors.NONE.code());
    }
  }
}
