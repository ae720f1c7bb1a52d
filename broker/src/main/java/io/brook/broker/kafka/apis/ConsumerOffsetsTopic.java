package io.brook.broker.kafka.apis;

import io.brook.broker.core.GroupService;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's {@code __consumer_offsets}, as Metadata shows it: internal, one partition, empty. Brook keeps
 * committed offsets in its group journals, so the topic holds nothing; clients only look for it (tools
 * list it as internal, franz-go's tests wait for it after a FindCoordinator). Like Kafka, which creates
 * it at the first group lookup, it is listed among all topics once a group exists or a group
 * coordinator was asked for; asked by name it is always there. Produce to it and CreateTopics of it
 * are refused.
 */
public final class ConsumerOffsetsTopic {
  public static final String NAME = io.brook.broker.core.TopicAdmin.KAFKA_OFFSETS_TOPIC;
  /** A fixed id: the topic never changes. */
  static final Uuid ID = new Uuid(0x5f5f636f6e73756dL, 0x65725f6f66667365L);

  private final GroupService groups;
  private volatile boolean looked;

  public ConsumerOffsetsTopic(GroupService groups) {
    this.groups = groups;
  }

  /** A group coordinator was asked for. */
  void lookedUp() {
    looked = true;
  }

  /** Whether a listing of all topics shows it. */
  boolean listed() {
    return looked || !groups.list().isEmpty();
  }

  static boolean is(String topic) {
    return NAME.equals(topic);
  }

  static MetadataResponseTopic metadata() {
    return new MetadataResponseTopic().setErrorCode(Errors.NONE.code()).setName(NAME).setTopicId(ID)
        .setIsInternal(true).setPartitions(List.of(new MetadataResponsePartition().setErrorCode(Errors.NONE.code())
            .setPartitionIndex(0).setLeaderId(0).setLeaderEpoch(0).setReplicaNodes(List.of(0))
            .setIsrNodes(List.of(0)).setOfflineReplicas(List.of())));
  }
}
