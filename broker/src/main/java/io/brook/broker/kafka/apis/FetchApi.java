package io.brook.broker.kafka.apis;

import io.brook.broker.core.AnswerSize;
import io.brook.broker.core.BatchForm;
import io.brook.broker.core.FetchPosition;
import io.brook.broker.core.FetchQuery;
import io.brook.broker.core.FetchService;
import io.brook.broker.core.PartitionRead;
import io.brook.broker.core.TopicAdmin;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import io.brook.protocol.batch.BatchFormat;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Fetch: stored Kafka batches go out as they are, the whole batch that holds the fetch offset first
 * (the client skips the records before it). Limits as Kafka's (KIP-74): per partition and in total,
 * but the answer's first batch always comes, however large. Fetch sessions (KIP-227) are declined:
 * every answer has session id 0 and holds exactly the partitions asked for, so clients send full
 * fetches. Brook has no transactions: the last stable offset is the high watermark and the
 * aborted-transactions list is empty, which read_committed consumers (Debian's kcat) need. Each
 * request's answer memory, long poll and end with its connection: {@link KafkaFetch}.
 */
public final class FetchApi implements KafkaApi {
  /**
   * The most one answer holds whatever the client asks (the default of Kafka's broker setting
   * fetch.max.bytes): answers are built in memory, so a client's max_bytes must not size them alone.
   */
  static final int MAX_ANSWER_BYTES = 55 * 1024 * 1024;

  /** Kafka answers count batches as they are; the framing around them is small and not counted. */
  private static final AnswerSize KAFKA_SIZE = AnswerSize.unframed(MAX_ANSWER_BYTES);

  private final FetchService fetch;
  private final TopicAdmin topics;

  public FetchApi(FetchService fetch, TopicAdmin topics) {
    this.fetch = fetch;
    this.topics = topics;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.FETCH;
  }

  @Override
  public short minVersion() {
    return 4;
  }

  @Override
  public short maxVersion() {
    return ApiKeys.FETCH.latestVersion();
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    FetchRequestData data = (FetchRequestData) request.body();
    List<Wanted> wanted = wanted(data, request.apiVersion(), request.caller());
    // min_bytes above 1 is answered as 1: the first record that comes ends the wait (clients default to 1).
    return new KafkaFetch(fetch, query(data, wanted), KAFKA_SIZE, data.minBytes() > 0,
        reads -> answer(wanted, reads), request.memory()).start();
  }

  /**
   * One partition asked for, in request order.
   *
   * @param topic the topic's name, or null when no topic has the id asked for
   * @param allowed whether the caller may consume the topic (else nothing of it is read)
   */
  private record Wanted(String topic, Uuid topicId, String requestedName, FetchPartition partition, boolean allowed) {
    boolean read() {
      return topic != null && allowed && !ConsumerOffsetsTopic.is(topic); // it holds nothing to read
    }
  }

  private List<Wanted> wanted(FetchRequestData data, short version, KafkaCaller caller) {
    List<Wanted> out = new ArrayList<>();
    for (FetchTopic t : data.topics()) {
      String name = version < 13 ? t.topic() : ConsumerOffsetsTopic.nameOf(t.topicId(), topics);
      boolean allowed = name != null && caller.consume(name);
      for (FetchPartition p : t.partitions()) {
        out.add(new Wanted(name, t.topicId(), t.topic(), p, allowed));
      }
    }
    return out;
  }

  private static FetchQuery query(FetchRequestData data, List<Wanted> wanted) {
    List<FetchPosition> positions = new ArrayList<>();
    for (Wanted w : wanted) {
      if (w.read()) {
        positions.add(new FetchPosition(w.topic, w.partition.partition(), w.partition.fetchOffset(),
            Math.max(0, w.partition.partitionMaxBytes())));
      }
    }
    int maxBytes = data.maxBytes() > 0 ? Math.min(data.maxBytes(), MAX_ANSWER_BYTES) : MAX_ANSWER_BYTES;
    return new FetchQuery(positions, Integer.MAX_VALUE, maxBytes, BatchForm.KAFKA, Math.max(0, data.maxWaitMs()));
  }

  private static FetchResponseData answer(List<Wanted> wanted, List<PartitionRead> reads) {
    FetchResponseData response = new FetchResponseData().setSessionId(0).setErrorCode(Errors.NONE.code());
    FetchableTopicResponse current = null;
    int read = 0;
    for (Wanted w : wanted) {
      if (current == null || !sameTopic(current, w)) {
        current = new FetchableTopicResponse().setTopic(w.requestedName).setTopicId(w.topicId);
        response.responses().add(current);
      }
      PartitionData part = new PartitionData().setPartitionIndex(w.partition.partition())
          .setAbortedTransactions(List.of()).setPreferredReadReplica(-1).setRecords(MemoryRecords.EMPTY);
      current.partitions().add(part);
      if (w.topic == null) {
        part.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()).setHighWatermark(-1).setLastStableOffset(-1)
            .setLogStartOffset(-1);
        continue;
      }
      if (!w.allowed) {
        part.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()).setHighWatermark(-1).setLastStableOffset(-1)
            .setLogStartOffset(-1);
        continue;
      }
      if (ConsumerOffsetsTopic.is(w.topic)) { // a KIP-848 regex may be assigned it: its consumer fetches it
        ConsumerOffsetsTopic.fetched(part, w.partition.fetchOffset());
        continue;
      }
      PartitionRead r = reads.get(read++);
      if (r.error() != null) { // Kafka's answer to a failed partition: -1 for what is not known
        part.setErrorCode(KafkaErrors.code(r.error()).code()).setHighWatermark(-1).setLastStableOffset(-1)
            .setLogStartOffset(-1);
        continue;
      }
      part.setHighWatermark(r.endOffset()).setLastStableOffset(r.endOffset()).setLogStartOffset(r.logStartOffset());
      if (!r.batches().isEmpty()) {
        part.setRecords(MemoryRecords.readableRecords(joined(r.batches())));
      }
    }
    return response;
  }

  /** The Kafka parts of version 2 stored batches (BatchForm.KAFKA): one batch without a copy. */
  static ByteBuffer joined(List<byte[]> batches) {
    int prefix = BatchFormat.V2_PREFIX_SIZE;
    if (batches.size() == 1) {
      byte[] b = batches.get(0);
      return ByteBuffer.wrap(b, prefix, b.length - prefix).slice();
    }
    int bytes = 0;
    for (byte[] b : batches) {
      bytes += b.length - prefix;
    }
    ByteBuffer joined = ByteBuffer.allocate(bytes);
    for (byte[] b : batches) {
      joined.put(b, prefix, b.length - prefix);
    }
    return joined.flip();
  }

  private static boolean sameTopic(FetchableTopicResponse t, Wanted w) {
    return Objects.equals(w.topicId, t.topicId()) && Objects.equals(w.requestedName, t.topic());
  }
}
