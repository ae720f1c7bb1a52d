package io.brook.broker.groups.classic;

import io.brook.broker.groups.TopicPartition;
import java.util.List;

/**
 * What the leader assigned one member: the bytes relayed to it (opaque), and the partitions they
 * name when the Kafka door could read them as a consumer assignment (else empty), for describe and lag.
 */
public record MemberAssignment(byte[] bytes, List<TopicPartition> partitions) {
  public static final MemberAssignment NONE = new MemberAssignment(new byte[0], List.of());

  public MemberAssignment {
    partitions = List.copyOf(partitions);
  }
}
