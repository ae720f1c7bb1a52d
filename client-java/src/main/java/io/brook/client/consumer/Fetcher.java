package io.brook.client.consumer;

import io.brook.client.Deserializer;
import io.brook.client.TopicPartition;
import io.brook.client.errors.BrookException;
import io.brook.client.internal.ErrorMapping;
import io.brook.client.internal.RecordConversion;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.FetchResponse;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.Record;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One Fetch of the partitions with known positions, turned into client records. Positions move
 * only once the whole answer was understood and deserialized, so a failure loses nothing: the
 * next poll reads the same records again.
 */
final class Fetcher<K, V> {
  private static final System.Logger LOG = System.getLogger(Fetcher.class.getName());

  private final ConsumerConfig config;
  private final FetchServiceGrpc.FetchServiceBlockingStub fetches;
  private final Deserializer<K> keys;
  private final Deserializer<V> values;

  Fetcher(ConsumerConfig config, FetchServiceGrpc.FetchServiceBlockingStub fetches, Deserializer<K> keys,
      Deserializer<V> values) {
    this.config = config;
    this.fetches = fetches;
    this.keys = keys;
    this.values = values;
  }

  /** Fetches, waiting at the broker up to {@code waitMs} for a record; updates the states. */
  ConsumerRecords<K, V> fetch(PartitionStates states, long waitMs) {
    List<TopicPartition> order = states.fetchOrder();
    if (order.isEmpty()) {
      return ConsumerRecords.empty();
    }
    FetchRequest.Builder request = FetchRequest.newBuilder().setMaxRecords(config.maxPollRecords())
        .setMaxBytes(config.fetchMaxBytes()).setMaxWaitMs((int) waitMs);
    for (TopicPartition tp : order) {
      request.addPartitions(FetchPartition.newBuilder().setTopic(tp.topic()).setPartition(tp.partition())
          .setOffset(states.position(tp)));
    }
    FetchResponse response = fetches.withDeadlineAfter(waitMs + config.requestTimeoutMs(), TimeUnit.MILLISECONDS)
        .fetch(request.build());

    Map<TopicPartition, List<ConsumerRecord<K, V>>> records = new LinkedHashMap<>();
    Map<TopicPartition, PartitionRecords> done = new HashMap<>();
    Map<TopicPartition, PartitionRecords> outOfRange = new LinkedHashMap<>();
    for (int i = 0; i < order.size() && i < response.getPartitionsCount(); i++) {
      TopicPartition tp = order.get(i);
      PartitionRecords pr = response.getPartitions(i);
      if (pr.getErrorCode() == ErrorCode.ERROR_CODE_OFFSET_OUT_OF_RANGE) {
        outOfRange.put(tp, pr);
        continue;
      }
      if (pr.getErrorCode() != ErrorCode.ERROR_CODE_UNSPECIFIED) {
        BrookException e = ErrorMapping.fromCode(pr.getErrorCode(), "fetch of " + tp + " failed: "
            + pr.getErrorMessage());
        if (e.isRetriable()) {
          LOG.log(System.Logger.Level.DEBUG, "fetch of {0} failed, trying again at the next poll: {1}", tp,
              e.getMessage());
          continue;
        }
        throw e;
      }
      List<ConsumerRecord<K, V>> converted = new ArrayList<>(pr.getRecordsCount());
      for (Record r : pr.getRecordsList()) {
        converted.add(RecordConversion.toConsumerRecord(tp.topic(), tp.partition(), r, keys, values));
      }
      if (!converted.isEmpty()) {
        records.put(tp, converted);
      }
      done.put(tp, pr);
    }
    for (Map.Entry<TopicPartition, PartitionRecords> e : outOfRange.entrySet()) {
      resetOutOfRange(states, e.getKey(), e.getValue());
    }
    done.forEach((tp, pr) -> states.fetched(tp, pr.getNextOffset(), pr.getEndOffset()));
    return new ConsumerRecords<>(records);
  }

  /** Retention passed the position (or it lies beyond the end): start over per auto.offset.reset. */
  private void resetOutOfRange(PartitionStates states, TopicPartition tp, PartitionRecords pr) {
    long from = states.position(tp);
    long to = switch (config.autoOffsetReset()) {
      case EARLIEST -> pr.getLogStartOffset();
      case LATEST -> pr.getEndOffset();
      case NONE -> throw ErrorMapping.fromCode(ErrorCode.ERROR_CODE_OFFSET_OUT_OF_RANGE, "offset " + from + " of " + tp
          + " is out of range [" + pr.getLogStartOffset() + ", " + pr.getEndOffset()
          + "] and auto.offset.reset is none: seek to a valid offset");
    };
    LOG.log(System.Logger.Level.WARNING, "offset {0} of {1} is out of range [{2}, {3}]; resetting to {4} ({5})",
        from, tp, pr.getLogStartOffset(), pr.getEndOffset(), to, config.autoOffsetReset().name().toLowerCase());
    states.seek(tp, to);
    states.endOffset(tp, pr.getEndOffset());
  }
}
