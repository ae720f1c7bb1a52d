package io.brook.broker.kafka.groups;

import io.brook.broker.groups.TopicPartition;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;

/**
 * Reads what a classic consumer's opaque bytes say, with kafka-clients' own ConsumerProtocol: the
 * topics of its subscription (JoinGroup metadata) and the partitions of its assignment (SyncGroup).
 * The broker only relays those bytes in a classic group; it reads them to show members' partitions,
 * lag owners and subscriptions, and to take a classic member into a KIP-848 group, where it also
 * writes the assignment the broker computed. Bytes of another protocol type (Connect, Streams' own)
 * or broken ones read as nothing.
 */
public final class ConsumerProtocolCodec {
  private ConsumerProtocolCodec() {}

  /** The subscribed topics, or none when the bytes are not a consumer subscription. */
  public static List<String> topics(byte[] subscription) {
    return read(subscription, b -> List.copyOf(ConsumerProtocol.deserializeSubscription(b).topics()));
  }

  /** The assigned partitions, or none when the bytes are not a consumer assignment. */
  public static List<TopicPartition> partitions(byte[] assignment) {
    return read(assignment, b -> brooks(ConsumerProtocol.deserializeAssignment(b).partitions()));
  }

  /** The partitions a member says it owns (subscription v1+), or none. */
  public static List<TopicPartition> owned(byte[] subscription) {
    return read(subscription, b -> brooks(ConsumerProtocol.deserializeSubscription(b).ownedPartitions()));
  }

  /** What {@code reader} reads from the bytes; none when there are none or they are not a consumer's. */
  private static <T> List<T> read(byte[] bytes, Function<ByteBuffer, List<T>> reader) {
    if (bytes == null || bytes.length == 0) {
      return List.of();
    }
    try {
      return reader.apply(ByteBuffer.wrap(bytes));
    } catch (RuntimeException e) { // SchemaException, BufferUnderflowException: not a consumer's
      return List.of();
    }
  }

  private static List<TopicPartition> brooks(List<org.apache.kafka.common.TopicPartition> kafkas) {
    return kafkas.stream().map(tp -> new TopicPartition(tp.topic(), tp.partition())).toList();
  }

  /**
   * An assignment the broker computed, in the version of the member's own subscription (as Kafka
   * answers a classic member of a KIP-848 group), so an older client reads it.
   */
  public static byte[] assignment(List<TopicPartition> partitions, byte[] subscription) {
    short version = 0;
    try {
      version = (short) Math.max(0, ConsumerProtocol.deserializeVersion(ByteBuffer.wrap(subscription)));
    } catch (RuntimeException e) {
      // not readable: version 0, which every consumer reads
    }
    List<org.apache.kafka.common.TopicPartition> tps = new ArrayList<>();
    partitions.forEach(tp -> tps.add(new org.apache.kafka.common.TopicPartition(tp.topic(), tp.partition())));
    ByteBuffer bytes = ConsumerProtocol.serializeAssignment(new ConsumerPartitionAssignor.Assignment(tps), version);
    byte[] out = new byte[bytes.remaining()];
    bytes.get(out);
    return out;
  }
}
