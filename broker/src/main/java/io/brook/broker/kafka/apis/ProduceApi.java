package io.brook.broker.kafka.apis;

import io.brook.broker.core.BatchOutcome;
import io.brook.broker.core.BatchToAppend;
import io.brook.broker.core.ProduceCall;
import io.brook.broker.core.ProduceService;
import io.brook.broker.core.TopicAdmin;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import io.brook.broker.records.IncomingBatch;
import io.brook.protocol.batch.KafkaBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Produce: each partition's record batch goes to the core as it came (one Kafka batch v2, compressed
 * or not), is validated once and stored without re-encoding. Versions 0–2 are advertised (librdkafka
 * turns compression off otherwise) but not served: they carry message formats 0 and 1, which Kafka 4
 * no longer takes either.
 */
public final class ProduceApi implements KafkaApi {
  private final ProduceService produce;
  private final TopicAdmin topics;

  public ProduceApi(ProduceService produce, TopicAdmin topics) {
    this.produce = produce;
    this.topics = topics;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.PRODUCE;
  }

  @Override
  public short minVersion() {
    return 3;
  }

  @Override
  public short advertisedMinVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return ApiKeys.PRODUCE.latestVersion();
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    ProduceRequestData data = (ProduceRequestData) request.body();
    boolean noAnswer = data.acks() == 0;
    Answer answer = new Answer();
    List<BatchToAppend> batches = new ArrayList<>();
    List<PartitionProduceResponse> where = new ArrayList<>(); // per batch: its part of the answer
    ProduceCall.Producer producer = null; // Kafka names it in each batch; Brook's core per request
    Failure wholeRequest = requestRefusal(data);
    for (TopicProduceData t : data.topicData()) {
      String topic = request.apiVersion() >= 13 ? ConsumerOffsetsTopic.nameOf(t.topicId(), topics) : t.name();
      Uuid topicId = request.apiVersion() >= 13 ? t.topicId() : Uuid.ZERO_UUID;
      TopicProduceResponse inAnswer = answer.topic(t.name(), topicId);
      for (PartitionProduceData p : t.partitionData()) {
        PartitionProduceResponse part = answer.partition(inAnswer, p.index());
        Failure refusal = wholeRequest != null ? wholeRequest : partitionRefusal(topic, p, request.caller());
        if (refusal != null) {
          error(part, refusal.error(), refusal.message());
          continue;
        }
        ByteBuffer buf = ((MemoryRecords) p.records()).buffer();
        byte[] array = buf.array();
        int offset = buf.arrayOffset() + buf.position();
        int length = buf.remaining();
        long producerId = KafkaBatch.producerId(array, offset);
        if (producerId >= 0) {
          short epoch = KafkaBatch.producerEpoch(array, offset);
          if (producer == null) {
            producer = new ProduceCall.Producer(producerId, epoch);
          } else if (producer.id() != producerId || producer.epoch() != epoch) {
            error(part, Errors.INVALID_REQUEST, "a produce request carries the batches of one producer only");
            continue;
          }
        }
        // The request's own bytes (a heap copy per frame, D44) go to the core as they are.
        batches.add(BatchToAppend.of(topic, p.index(), producerId >= 0 ? KafkaBatch.baseSequence(array, offset) : null,
            () -> new IncomingBatch.Kafka(array, offset, length), length));
        where.add(part);
      }
    }
    CompletableFuture<ApiMessage> done;
    if (batches.isEmpty()) {
      done = CompletableFuture.completedFuture(answer.data);
    } else {
      // The principal owns the producer id (D25). acks=all means written to the log, as on a single
      // Kafka node; the device is forced by Brook's flush policy.
      ProduceCall call = new ProduceCall(request.caller().principal(), batches, false, producer);
      CompletableFuture<List<BatchOutcome>> written;
      try {
        written = produce.produce(call, e -> {});
      } catch (BrokerException e) { // the request as a whole: every batch of it fails so
        for (PartitionProduceResponse part : where) {
          error(part, KafkaErrors.code(e.error()), e.getMessage());
        }
        return noAnswer ? CompletableFuture.completedFuture(null) : CompletableFuture.completedFuture(answer.data);
      }
      done = written.thenApply(outcomes -> {
        for (BatchOutcome o : outcomes) {
          PartitionProduceResponse part = where.get(o.batchIndex());
          if (o.error() != null) {
            error(part, KafkaErrors.code(o.error()), o.errorMessage());
          } else {
            part.setBaseOffset(o.baseOffset()).setLogAppendTimeMs(o.logAppendTime() ? o.appendTimeMs() : -1)
                .setLogStartOffset(o.logStartOffset());
          }
        }
        return answer.data;
      });
    }
    return noAnswer ? done.thenApply(a -> null) : done;
  }

  /** Why no partition of the request can be handed to the core, or null. */
  private static Failure requestRefusal(ProduceRequestData data) {
    if (data.transactionalId() != null) {
      return new Failure(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
          "transactions are not supported by Brook (transactional.id " + data.transactionalId() + ")");
    }
    if (data.acks() != 0 && data.acks() != 1 && data.acks() != -1) {
      return new Failure(Errors.INVALID_REQUIRED_ACKS, "acks must be 0, 1 or -1 (all), got " + data.acks());
    }
    return null;
  }

  /** Why a partition's data cannot even be handed to the core, or null. */
  private static Failure partitionRefusal(String topic, PartitionProduceData p, KafkaCaller caller) {
    if (topic == null) {
      return new Failure(Errors.UNKNOWN_TOPIC_ID, "unknown topic id");
    }
    if (!caller.produce(topic)) { // before anything about the data or the topic is told
      return Unauthorized.topic(caller, "produce", topic);
    }
    if (ConsumerOffsetsTopic.is(topic)) {
      // As Kafka ("Cannot append to internal topic"), and not retriable: a producer gives up at once.
      return new Failure(Errors.INVALID_TOPIC_EXCEPTION, topic + " is internal: commit offsets with OffsetCommit");
    }
    if (!(p.records() instanceof MemoryRecords records) || records.sizeInBytes() == 0) {
      return corrupt("no record batch for partition " + p.index());
    }
    ByteBuffer buf = records.buffer();
    if (!buf.hasArray()) {
      return corrupt("record batch not in a heap buffer");
    }
    if (buf.remaining() < KafkaBatch.HEADER_SIZE) {
      return corrupt("the record batch is " + buf.remaining() + " bytes, shorter than a batch header");
    }
    int batchLength = buf.getInt(buf.position() + KafkaBatch.BATCH_LENGTH);
    if (batchLength + KafkaBatch.LOG_OVERHEAD != buf.remaining()) { // Kafka's rule since Produce v3
      return corrupt("a produce request must hold exactly one record batch per partition (batch length "
          + batchLength + " in " + buf.remaining() + " bytes)");
    }
    return null;
  }

  private static Failure corrupt(String message) {
    return new Failure(Errors.CORRUPT_MESSAGE, message);
  }

  private static void error(PartitionProduceResponse part, Errors code, String message) {
    part.setErrorCode(code.code()).setErrorMessage(message);
  }

  /** The response, built in the request's order of topics and partitions. */
  private static final class Answer {
    final ProduceResponseData data = new ProduceResponseData();

    TopicProduceResponse topic(String name, Uuid id) {
      TopicProduceResponse t = new TopicProduceResponse().setName(name).setTopicId(id);
      data.responses().add(t);
      return t;
    }

    PartitionProduceResponse partition(TopicProduceResponse topic, int index) {
      PartitionProduceResponse p = new PartitionProduceResponse().setIndex(index).setBaseOffset(-1)
          .setLogAppendTimeMs(-1).setLogStartOffset(-1);
      topic.partitionResponses().add(p);
      return p;
    }
  }
}
