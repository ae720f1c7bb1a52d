package io.brook.broker.kafka.groups;

import io.brook.broker.groups.TopicPartition;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;

/**
 * Reads what a classic consumer's opaque bytes say, with kafka-clients' own ConsumerProtocol: the
 * topics of its subscription (JoinGroup metadata) and the partitions of its assignment (SyncGroup).
 * The broker only relays those bytes; it reads them to show members' partitions, lag owners and
 * subscriptions. Bytes of another protocol type (Connect, Streams' own) or broken ones read as nothing.
 */
public final class ConsumerProtocolCodec {
  private ConsumerProtocolCodec() {}

  /** The subscribed topics, or none when the bytes are not a consumer subscription. */
  public static List<String> topics(byte[] subscription) {
    if (subscription == null || subscription.length == 0) {
      return List.of();
    }
    try {
      return List.copyOf(ConsumerProtocol.deserializeSubscription(ByteBuffer.wrap(subscription)).topics());
    } catch (RuntimeException e) { // SchemaException, BufferUnderflowException: not a consumer's
      return List.of();
    }
  }

  /** The assigned partitions, or none when the bytes are not a consumer assignment. */
  public static List<TopicPartition> partitions(byte[] assignment) {
    if (assignment == null || assignment.length == 0) {
      return List.of();
    }
    try {
      return ConsumerProtocol.deserializeAssignment(ByteBuffer.wrap(assignment)).partitions().stream()
          .map(tp -> new TopicPartition(tp.topic(), tp.partition())).toList();
    } catch (RuntimeException e) {
      return List.of();
    }
  }
}
