package io.brook.broker.delivery;

import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskWrite;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.LogRecord;
import io.brook.broker.records.RecordHeader;
import io.brook.broker.topics.Topic;
import io.brook.broker.topics.TopicManager;
import io.brook.protocol.Partitioner;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes records that could not be processed to a dead-letter topic (created on first use with the
 * broker's default partition count): key, value, headers and timestamp as they were, plus headers
 * naming the origin. Keyed records keep their key's partition rule.
 */
public final class DeadLetters {
  public static final String REASON_MAX_ATTEMPTS = "max_delivery_attempts";
  public static final String REASON_REJECTED = "rejected";

  private final TopicManager topics;
  private final DiskGuard disk;

  public DeadLetters(TopicManager topics, DiskGuard disk) {
    this.topics = topics;
    this.disk = disk;
  }

  /**
   * Appends one dead letter; throws a BrokerException when the topic cannot take it. Dead letters
   * count as metadata for the disk guard (D19): they go on in the headroom while produce is refused.
   */
  public void write(String dlqTopic, String fromTopic, int fromPartition, LogRecord r, int attempts, String reason,
      long nowMs) {
    disk.check(DiskWrite.DEAD_LETTER);
    Topic t;
    try {
      t = topics.get(dlqTopic);
    } catch (BrokerException e) {
      if (e.error() != BrokerError.UNKNOWN_TOPIC) {
        throw e;
      }
      try {
        t = topics.create(dlqTopic, 0, Map.of());
      } catch (BrokerException exists) {
        if (exists.error() != BrokerError.TOPIC_EXISTS) {
          throw exists;
        }
        t = topics.get(dlqTopic);
      }
    }
    List<RecordHeader> headers = new ArrayList<>(r.headers());
    headers.add(header("brook.dlq.topic", fromTopic));
    headers.add(header("brook.dlq.partition", Integer.toString(fromPartition)));
    headers.add(header("brook.dlq.offset", Long.toString(r.offset())));
    headers.add(header("brook.dlq.attempts", Integer.toString(attempts)));
    headers.add(header("brook.dlq.reason", reason));
    int p = r.key() != null ? Partitioner.partitionForKey(r.key(), t.partitionCount()) : t.nextKeylessPartition();
    t.partition(p).appendDeadLetter(LogRecord.of(r.key(), r.value(), r.timestamp(), headers), nowMs);
  }

  private static RecordHeader header(String name, String value) {
    return RecordHeader.of(name, value.getBytes(StandardCharsets.UTF_8));
  }
}
