package io.brook.broker.kafka.apis;

import io.brook.broker.core.ShareGroupAdmin;
import io.brook.broker.core.TopicAdmin;
import io.brook.broker.groups.ShareOffsets;
import io.brook.broker.groups.TopicPartition;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestTopic;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeShareGroupOffsets (Admin.listShareGroupOffsets, kafka-share-groups --describe --offsets):
 * each partition's share-partition start offset, the start of the ack group's window there, and (v1)
 * its lag: the records from the start to the log end not settled yet (D67). Named topics: a
 * partition with no window has start and lag -1 (Kafka's "not initialized"), an unknown topic or
 * partition UNKNOWN_TOPIC_OR_PARTITION; no topics: every window. Topics the caller may not see are
 * TOPIC_AUTHORIZATION_FAILED when named and left out otherwise.
 */
public final class DescribeShareGroupOffsetsApi implements KafkaApi {
  /** Brook's one replica never changes leader: the epoch its Metadata answers. */
  private static final int LEADER_EPOCH = 0;
  private final ShareGroupAdmin groups;
  private final TopicAdmin topics;

  public DescribeShareGroupOffsetsApi(ShareGroupAdmin groups, TopicAdmin topics) {
    this.groups = groups;
    this.topics = topics;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.DESCRIBE_SHARE_GROUP_OFFSETS;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 1;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    DescribeShareGroupOffsetsRequestData body = (DescribeShareGroupOffsetsRequestData) request.body();
    DescribeShareGroupOffsetsResponseData response = new DescribeShareGroupOffsetsResponseData().setThrottleTimeMs(0);
    for (DescribeShareGroupOffsetsRequestGroup g : body.groups()) {
      response.groups().add(describe(g, request.caller()));
    }
    return CompletableFuture.completedFuture(response);
  }

  private DescribeShareGroupOffsetsResponseGroup describe(DescribeShareGroupOffsetsRequestGroup asked,
      KafkaCaller caller) {
    String id = asked.groupId();
    DescribeShareGroupOffsetsResponseGroup out = new DescribeShareGroupOffsetsResponseGroup().setGroupId(id);
    if (id.isEmpty()) {
      return failed(out, ShareGroupErrors.emptyId());
    }
    if (!caller.anyOnGroup(id)) {
      return failed(out, GroupErrors.notAuthorized(id));
    }
    Map<TopicPartition, ShareOffsets.Offset> windows = new HashMap<>();
    try {
      groups.offsets(id).forEach(o -> windows.put(o.tp(), o));
    } catch (RuntimeException e) {
      return failed(out, ShareGroupErrors.of(id, e));
    }
    out.setErrorCode(Errors.NONE.code());
    Map<String, DescribeShareGroupOffsetsResponseTopic> byTopic = new LinkedHashMap<>();
    if (asked.topics() == null) {
      windows.values().stream().filter(o -> caller.visibleTopics().test(o.tp().topic()))
          .sorted((a, b) -> a.tp().compareTo(b.tp()))
          .forEach(o -> topic(byTopic, o.tp().topic()).partitions().add(found(o)));
    } else {
      for (DescribeShareGroupOffsetsRequestTopic t : asked.topics()) {
        DescribeShareGroupOffsetsResponseTopic topic = topic(byTopic, t.topicName());
        Errors refused = !caller.visibleTopics().test(t.topicName()) ? Errors.TOPIC_AUTHORIZATION_FAILED
            : topic.topicId().equals(Uuid.ZERO_UUID) ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.NONE;
        int count = refused == Errors.NONE ? topics.describe(t.topicName()).partitions().size() : 0;
        for (int p : t.partitions()) {
          ShareOffsets.Offset o = windows.get(new TopicPartition(t.topicName(), p));
          Errors error = refused != Errors.NONE ? refused
              : p < 0 || p >= count ? Errors.UNKNOWN_TOPIC_OR_PARTITION : Errors.NONE;
          topic.partitions().add(error != Errors.NONE ? partition(p, -1, -1).setErrorCode(error.code())
              .setErrorMessage(error.message()) : o == null ? partition(p, -1, -1) : found(o));
        }
      }
    }
    out.setTopics(List.copyOf(byTopic.values()));
    return out;
  }

  private DescribeShareGroupOffsetsResponseTopic topic(Map<String, DescribeShareGroupOffsetsResponseTopic> byTopic,
      String name) {
    return byTopic.computeIfAbsent(name, n -> {
      UUID id = topics.idOf(n);
      return new DescribeShareGroupOffsetsResponseTopic().setTopicName(n)
          .setTopicId(id == null ? Uuid.ZERO_UUID : TopicIds.toKafka(id));
    });
  }

  private static DescribeShareGroupOffsetsResponsePartition found(ShareOffsets.Offset o) {
    return partition(o.tp().partition(), o.start(), o.lag()).setLeaderEpoch(LEADER_EPOCH);
  }

  private static DescribeShareGroupOffsetsResponsePartition partition(int p, long start, long lag) {
    return new DescribeShareGroupOffsetsResponsePartition().setPartitionIndex(p).setStartOffset(start)
        .setLeaderEpoch(-1).setLag(lag).setErrorCode(Errors.NONE.code());
  }

  private static DescribeShareGroupOffsetsResponseGroup failed(DescribeShareGroupOffsetsResponseGroup out, Failure f) {
    return out.setErrorCode(f.code()).setErrorMessage(f.message());
  }
}
