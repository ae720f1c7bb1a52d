package io.brook.broker.kafka.apis;

import io.brook.broker.core.FetchService;
import io.brook.broker.core.OffsetLookup;
import io.brook.broker.core.OffsetTimes;
import io.brook.broker.core.Position;
import io.brook.broker.core.TimedOffset;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListOffsets: earliest (-2), latest (-1), max timestamp (-3), earliest local (-4, the earliest: all
 * of Brook's data is local), latest tiered (-5) and earliest pending upload (-6) (none: Brook has no
 * tiered storage), or the first record at or after a timestamp. Leader epoch 0; either isolation
 * level gives the same answer (no transactions: the last stable offset is the end). Errors per
 * partition.
 */
public final class ListOffsetsApi implements KafkaApi {
  static final long LATEST = -1;
  static final long EARLIEST = -2;
  static final long MAX_TIMESTAMP = -3;
  static final long EARLIEST_LOCAL = -4;
  static final long LATEST_TIERED = -5;
  static final long EARLIEST_PENDING_UPLOAD = -6;

  private final FetchService fetch;
  private final OffsetTimes times;

  public ListOffsetsApi(FetchService fetch, OffsetTimes times) {
    this.fetch = fetch;
    this.times = times;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.LIST_OFFSETS;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short maxVersion() {
    return 11;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    ListOffsetsRequestData body = (ListOffsetsRequestData) request.body();
    boolean withEpoch = request.apiVersion() >= 4; // the field exists from v4; its default (-1) before
    List<ListOffsetsTopicResponse> topics = new ArrayList<>();
    for (ListOffsetsTopic t : body.topics()) {
      List<ListOffsetsPartitionResponse> partitions = new ArrayList<>();
      boolean allowed = request.caller().consume(t.name());
      for (ListOffsetsPartition p : t.partitions()) {
        ListOffsetsPartitionResponse answer = allowed ? lookup(t.name(), p.partitionIndex(), p.timestamp())
            : new ListOffsetsPartitionResponse().setPartitionIndex(p.partitionIndex()).setTimestamp(-1).setOffset(-1)
                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        if (withEpoch && answer.errorCode() == Errors.NONE.code() && answer.offset() >= 0) {
          answer.setLeaderEpoch(0);
        }
        partitions.add(answer);
      }
      topics.add(new ListOffsetsTopicResponse().setName(t.name()).setPartitions(partitions));
    }
    return CompletableFuture.completedFuture(new ListOffsetsResponseData().setThrottleTimeMs(0).setTopics(topics));
  }

  private ListOffsetsPartitionResponse lookup(String topic, int partition, long timestamp) {
    if (ConsumerOffsetsTopic.is(topic)) { // a KIP-848 regex may be assigned it: its consumer looks its offsets up
      return ConsumerOffsetsTopic.listOffset(partition, timestamp);
    }
    ListOffsetsPartitionResponse answer = new ListOffsetsPartitionResponse().setPartitionIndex(partition)
        .setTimestamp(-1).setOffset(-1);
    if (timestamp == LATEST || timestamp == EARLIEST || timestamp == EARLIEST_LOCAL) {
      OffsetLookup found = fetch.listOffset(topic, partition,
          timestamp == LATEST ? new Position.Latest() : new Position.Earliest());
      return found.error() != null ? answer.setErrorCode(KafkaErrors.code(found.error()).code())
          : answer.setErrorCode(Errors.NONE.code()).setOffset(found.offset());
    }
    if (timestamp == LATEST_TIERED || timestamp == EARLIEST_PENDING_UPLOAD) {
      OffsetLookup exists = fetch.listOffset(topic, partition, new Position.Latest()); // for its errors
      return answer.setErrorCode(exists.error() == null ? Errors.NONE.code() : KafkaErrors.code(exists.error()).code());
    }
    TimedOffset found = timestamp == MAX_TIMESTAMP ? times.maxTimestamp(topic, partition)
        : times.atOrAfter(topic, partition, timestamp);
    if (found.error() != null) {
      return answer.setErrorCode(KafkaErrors.code(found.error()).code());
    }
    return answer.setErrorCode(Errors.NONE.code()).setOffset(found.offset()).setTimestamp(found.timestampMs());
  }
}
