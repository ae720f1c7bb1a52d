package io.brook.broker.kafka.apis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ListOffsets on a real core, with producer timestamps that are not in offset order. */
class ListOffsetsApiTest {
  @TempDir Path dir;
  KafkaCore core;

  @BeforeEach
  void setUp() throws Exception {
    core = new KafkaCore(dir);
    core.admin.create("t", 2, Map.of());
    core.append("t", 1000, 5000, 3000, 5000, 2000); // offsets 0..4; the largest timestamp first at offset 1
  }

  @AfterEach
  void close() {
    core.close();
  }

  ListOffsetsPartitionResponse list(short version, String topic, int partition, long timestamp) throws Exception {
    ListOffsetsResponseData r = core.call(ApiKeys.LIST_OFFSETS, version, new ListOffsetsRequestData()
        .setReplicaId(-1).setTopics(List.of(new ListOffsetsTopic().setName(topic).setPartitions(List.of(
            new ListOffsetsPartition().setPartitionIndex(partition).setTimestamp(timestamp))))));
    return r.topics().get(0).partitions().get(0);
  }

  static void assertFound(ListOffsetsPartitionResponse r, long offset, long timestamp) {
    assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
    assertThat(r.offset()).as("offset").isEqualTo(offset);
    assertThat(r.timestamp()).as("timestamp").isEqualTo(timestamp);
  }

  @Test
  void earliestAndLatest() throws Exception {
    assertFound(list((short) 11, "t", 0, -2), 0, -1);
    assertFound(list((short) 11, "t", 0, -1), 5, -1);
    assertFound(list((short) 11, "t", 1, -1), 0, -1);
    assertFound(list((short) 11, "t", 0, -4), 0, -1); // earliest local: all of Brook's data is local
    assertThat(list((short) 11, "t", 0, -1).leaderEpoch()).isZero();
  }

  @Test
  void theFirstRecordAtOrAfterATimestampWithItsOwnTimestamp() throws Exception {
    assertFound(list((short) 11, "t", 0, 0), 0, 1000);
    assertFound(list((short) 11, "t", 0, 2500), 1, 5000);
    assertFound(list((short) 11, "t", 0, 5000), 1, 5000);
    assertFound(list((short) 11, "t", 0, 5001), -1, -1); // none: Kafka answers -1
    assertFound(list((short) 11, "t", 1, 0), -1, -1); // empty partition
  }

  @Test
  void maxTimestampIsTheFirstRecordWithTheLargestTimestamp() throws Exception {
    assertFound(list((short) 11, "t", 0, -3), 1, 5000);
    assertFound(list((short) 11, "t", 1, -3), -1, -1);
    core.append("t", Long.MAX_VALUE - 1, 7);
    assertFound(list((short) 11, "t", 0, -3), 5, Long.MAX_VALUE - 1);
  }

  @Test
  void noTieredStorage() throws Exception {
    assertFound(list((short) 11, "t", 0, -5), -1, -1);
    assertFound(list((short) 11, "t", 0, -6), -1, -1);
  }

  @Test
  void errorsPerPartition() throws Exception {
    assertThat(list((short) 11, "nope", 0, -1).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    assertThat(list((short) 11, "t", 7, -1).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    assertThat(list((short) 11, "t", 7, 100).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    assertThat(list((short) 11, "t", 7, -3).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
  }

  @Test
  void everyServedVersionEncodesTheAnswer() throws Exception {
    for (short v = 1; v <= 11; v++) {
      assertFound(list(v, "t", 0, -1), 5, -1);
      assertFound(list(v, "t", 0, 2500), 1, 5000);
    }
  }
}
