package io.brook.broker.kafka.apis;

import io.brook.broker.core.GroupService;
import io.brook.broker.core.TopicAdmin;
import io.brook.broker.groups.InternalTopic;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;

/**
 * Kafka's {@code __consumer_offsets}, as Metadata shows it: internal, one partition, empty. Brook keeps
 * committed offsets in its group journals, so the topic holds nothing; clients only look for it (tools
 * list it as internal, franz-go's tests wait for it after a FindCoordinator). Like Kafka, which creates
 * it at the first group lookup, it is listed among all topics once a group exists or a group
 * coordinator was asked for; asked by name it is always there. Produce to it and CreateTopics of it
 * are refused. A KIP-848 regex that matches it is assigned its partition, as on Kafka: ListOffsets and
 * Fetch answer it as the empty partition it is.
 */
public final class ConsumerOffsetsTopic {
  public static final String NAME = InternalTopic.CONSUMER_OFFSETS.name();
  /** A fixed id, the one the KIP-848 engine assigns it by: the topic never changes. */
  static final Uuid ID = TopicIds.toKafka(InternalTopic.CONSUMER_OFFSETS.id());

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

  /**
   * The name of the topic a request names by id, this one's fixed id included (a KIP-848 regex may be
   * assigned it, and its consumer then fetches, commits and asks offsets by that id); null when none.
   */
  static String nameOf(Uuid id, TopicAdmin topics) {
    return ID.equals(id) ? NAME : topics.nameOf(TopicIds.toBrook(id));
  }

  /** ListOffsets of its partition: an empty log, so earliest and latest are 0 and no timestamp has a record. */
  static ListOffsetsPartitionResponse listOffset(int partition, long timestamp) {
    ListOffsetsPartitionResponse answer = new ListOffsetsPartitionResponse().setPartitionIndex(partition)
        .setTimestamp(-1).setOffset(-1);
    if (partition != 0) {
      return answer.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    }
    boolean end = timestamp == ListOffsetsApi.EARLIEST || timestamp == ListOffsetsApi.LATEST
        || timestamp == ListOffsetsApi.EARLIEST_LOCAL;
    return answer.setErrorCode(Errors.NONE.code()).setOffset(end ? 0 : -1);
  }

  /** Fetch of its partition: nothing to read, ever; an offset other than 0 is out of its (empty) range. */
  static void fetched(PartitionData part, long fetchOffset) {
    Errors error = part.partitionIndex() != 0 ? Errors.UNKNOWN_TOPIC_OR_PARTITION
        : fetchOffset != 0 ? Errors.OFFSET_OUT_OF_RANGE : Errors.NONE;
    long at = error == Errors.NONE ? 0 : -1;
    part.setErrorCode(error.code()).setHighWatermark(at).setLastStableOffset(at).setLogStartOffset(at);
  }

  static MetadataResponseTopic metadata() {
    return new MetadataResponseTopic().setErrorCode(Errors.NONE.code()).setName(NAME).setTopicId(ID)
        .setIsInternal(true).setPartitions(List.of(new MetadataResponsePartition().setErrorCode(Errors.NONE.code())
            .setPartitionIndex(0).setLeaderId(0).setLeaderEpoch(0).setReplicaNodes(List.of(0))
            .setIsrNodes(List.of(0)).setOfflineReplicas(List.of())));
  }
}
