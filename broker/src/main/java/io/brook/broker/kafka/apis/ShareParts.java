package io.brook.broker.kafka.apis;

import io.brook.broker.core.TopicAdmin;
import io.brook.broker.groups.Settlement;
import io.brook.broker.groups.TopicPartition;
import io.brook.broker.kafka.access.KafkaCaller;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * The partitions a ShareFetch or ShareAcknowledge names, by topic id, with what each one's answer
 * must say before anything runs: an unknown topic id or a topic the caller may not consume is refused
 * for that partition alone; malformed acknowledgements refuse that partition's acknowledgements.
 */
final class ShareParts {
  /** One named partition: its topic's name (null when unknown), its refusal and its acknowledgement refusal. */
  static final class Part {
    final Uuid topicId;
    final int partition;
    final String topic;
    Errors error = Errors.NONE;
    String message;
    Errors ackError = Errors.NONE;
    String ackMessage;

    Part(Uuid topicId, int partition, String topic) {
      this.topicId = topicId;
      this.partition = partition;
      this.topic = topic;
    }
  }

  private final TopicAdmin topics;
  private final KafkaCaller caller;
  private final boolean renewAllowed;
  final Map<String, Part> parts = new LinkedHashMap<>();
  final Settlement acks = ShareAcks.empty();
  final List<TopicPartition> named = new ArrayList<>();

  ShareParts(TopicAdmin topics, KafkaCaller caller, boolean renewAllowed) {
    this.topics = topics;
    this.caller = caller;
    this.renewAllowed = renewAllowed;
  }

  /** A partition the request names, with its acknowledgement batches. */
  void add(Uuid topicId, int partition, List<ShareAcks.Batch> batches) {
    String name = topics.nameOf(TopicIds.toBrook(topicId));
    Part p = new Part(topicId, partition, name);
    parts.put(key(topicId, partition), p);
    if (name == null) {
      p.error = Errors.UNKNOWN_TOPIC_ID;
      p.message = "no topic has id " + topicId;
      p.ackError = batches.isEmpty() ? Errors.NONE : Errors.UNKNOWN_TOPIC_ID;
      return;
    }
    if (!caller.consume(name)) {
      p.error = Errors.TOPIC_AUTHORIZATION_FAILED;
      p.message = "not allowed to consume topic '" + name + "'";
      p.ackError = batches.isEmpty() ? Errors.NONE : Errors.TOPIC_AUTHORIZATION_FAILED;
      return;
    }
    named.add(new TopicPartition(name, partition));
    String bad = ShareAcks.add(name, partition, batches, renewAllowed, acks);
    if (bad != null) {
      p.ackError = Errors.INVALID_REQUEST;
      p.ackMessage = bad;
    }
  }

  /** The partition's entry, added for one the request did not name (records of its session). */
  Part of(String topic, int partition) {
    java.util.UUID id = topics.idOf(topic);
    Uuid kafkaId = id == null ? Uuid.ZERO_UUID : TopicIds.toKafka(id);
    return parts.computeIfAbsent(key(kafkaId, partition), k -> new Part(kafkaId, partition, topic));
  }

  /** Acknowledgements that did not apply, on their partitions' entries. */
  void failed(List<Settlement.Failure> failures) {
    for (Settlement.Failure f : failures) {
      Part p = of(f.topic(), f.partition());
      if (p.ackError == Errors.NONE) {
        p.ackError = ShareGroupErrors.of(f);
        p.ackMessage = f.message();
      }
    }
  }

  private static String key(Uuid topicId, int partition) {
    return topicId + ":" + partition;
  }
}
