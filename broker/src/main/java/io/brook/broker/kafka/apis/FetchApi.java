package io.brook.broker.kafka.apis;

import io.brook.broker.core.FetchPosition;
import io.brook.broker.core.FetchQuery;
import io.brook.broker.core.FetchService;
import io.brook.broker.core.LongPoll;
import io.brook.broker.core.PartitionRead;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
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
 * Fetch: the stored Kafka batches go out as they are, the whole batch that holds the fetch offset
 * first (the client skips the records before it). Limits as Kafka's (KIP-74): per partition and in
 * total, but the first batch of the answer always comes, however large. Fetch sessions (KIP-227) are
 * declined: every answer has session id 0 and holds exactly the partitions asked for, so clients
 * send full fetches. Brook has no transactions: the last stable offset is the high watermark and the
 * aborted-transactions list is empty, which read_committed consumers (Debian's kcat) need.
 */
public final class FetchApi implements KafkaApi {
  private final FetchService fetch;
  private final TopicIds ids;

  public FetchApi(FetchService fetch, TopicIds ids) {
    this.fetch = fetch;
    this.ids = ids;
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
    List<Wanted> wanted = wanted(data, request.apiVersion());
    FetchResponseData first = read(data, wanted);
    if (hasData(first) || data.maxWaitMs() <= 0 || data.minBytes() <= 0) {
      return CompletableFuture.completedFuture(first);
    }
    List<FetchPosition> positions = new ArrayList<>();
    for (Wanted w : wanted) {
      if (w.topic != null) {
        positions.add(new FetchPosition(w.topic, w.partition.partition(), w.partition.fetchOffset()));
      }
    }
    CompletableFuture<ApiMessage> answer = new CompletableFuture<>();
    FetchQuery waitFor = new FetchQuery(positions, Integer.MAX_VALUE, data.maxBytes(), true, data.maxWaitMs());
    LongPoll poll = fetch.longPoll(waitFor, List.of(), () -> answer.complete(read(data, wanted)));
    if (poll == null) { // nothing to wait on (a partition went away): answer with what there is
      return CompletableFuture.completedFuture(first);
    }
    poll.start();
    return answer;
  }

  /** One partition asked for, in request order, with its topic's name (null: no topic with that id). */
  private record Wanted(String topic, Uuid topicId, String requestedName, FetchPartition partition) {}

  private List<Wanted> wanted(FetchRequestData data, short version) {
    List<Wanted> out = new ArrayList<>();
    for (FetchTopic t : data.topics()) {
      String name = version >= 13 ? ids.nameOf(t.topicId()) : t.topic();
      for (FetchPartition p : t.partitions()) {
        out.add(new Wanted(name, t.topicId(), t.topic(), p));
      }
    }
    return out;
  }

  private FetchResponseData read(FetchRequestData data, List<Wanted> wanted) {
    FetchResponseData response = new FetchResponseData().setSessionId(0).setErrorCode(Errors.NONE.code());
    int room = data.maxBytes() > 0 ? data.maxBytes() : Integer.MAX_VALUE;
    boolean sentAny = false;
    FetchableTopicResponse current = null;
    for (Wanted w : wanted) {
      if (current == null || !sameTopic(current, w)) {
        current = new FetchableTopicResponse().setTopic(w.requestedName).setTopicId(w.topicId);
        response.responses().add(current);
      }
      PartitionData part = new PartitionData().setPartitionIndex(w.partition.partition()).setHighWatermark(-1)
          .setLastStableOffset(-1).setLogStartOffset(-1).setAbortedTransactions(List.of())
          .setPreferredReadReplica(-1).setRecords(MemoryRecords.EMPTY);
      current.partitions().add(part);
      if (w.topic == null) {
        part.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
        continue;
      }
      int limit = Math.min(room, Math.max(0, w.partition.partitionMaxBytes()));
      PartitionRead r = fetch.readKafkaBatches(w.topic, w.partition.partition(), w.partition.fetchOffset(), limit,
          !sentAny);
      if (r.error() != null) {
        part.setErrorCode(KafkaErrorCodes.of(r.error()).code()).setHighWatermark(r.endOffset())
            .setLastStableOffset(r.endOffset()).setLogStartOffset(r.logStartOffset());
        continue;
      }
      part.setHighWatermark(r.endOffset()).setLastStableOffset(r.endOffset()).setLogStartOffset(r.logStartOffset());
      int bytes = 0;
      for (byte[] b : r.batches()) {
        bytes += b.length;
      }
      if (bytes > 0) {
        ByteBuffer joined = ByteBuffer.allocate(bytes);
        for (byte[] b : r.batches()) {
          joined.put(b);
        }
        joined.flip();
        part.setRecords(MemoryRecords.readableRecords(joined));
        room = Math.max(0, room - bytes);
        sentAny = true;
      }
    }
    return response;
  }

  private static boolean sameTopic(FetchableTopicResponse t, Wanted w) {
    return w.topicId != null && !Uuid.ZERO_UUID.equals(w.topicId) ? w.topicId.equals(t.topicId())
        : java.util.Objects.equals(w.requestedName, t.topic());
  }

  private static boolean hasData(FetchResponseData r) {
    for (FetchableTopicResponse t : r.responses()) {
      for (PartitionData p : t.partitions()) {
        if (p.errorCode() != Errors.NONE.code() || p.records().sizeInBytes() > 0) {
          return true;
        }
      }
    }
    return false;
  }
}
