package io.brook.client.consumer;

/**
 * The consumer's membership as of now: the group, the broker's member id, and the generation of
 * the assignment it holds. {@code generation} is -1 and {@code memberId} empty while it holds none
 * (before the first join, during a rebalance, after it was removed).
 */
public record ConsumerGroupMetadata(String groupId, String memberId, int generation) {
  public boolean isMember() {
    return generation >= 0;
  }
}
