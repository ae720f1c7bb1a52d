package io.brook.client.consumer;

import io.brook.client.TopicPartition;
import java.util.Collection;

/**
 * Told when the group moves partitions; every method runs on the polling thread, inside {@link
 * BrookConsumer#poll} (or {@link BrookConsumer#close} and {@link BrookConsumer#unsubscribe}).
 * Rebalancing is eager by default: a member gives up all its partitions and gets its new set. With
 * {@code rebalance.protocol} {@link RebalanceProtocol#COOPERATIVE} it hears only of what moves:
 * onPartitionsRevoked with the partitions that go to another member (only when some do) and
 * onPartitionsAssigned with the partitions added (possibly none), as Kafka's cooperative protocol.
 *
 * <p>Exceptions thrown here are rethrown by the call that ran the callback, once the consumer has
 * finished the step (the partitions are still revoked, assigned or lost).
 */
public interface ConsumerRebalanceListener {
  /**
   * Before the member rejoins; it still owns these partitions and its generation is still current,
   * so {@link BrookConsumer#commitSync()} here stores what was processed. With auto commit the
   * consumer has already committed the positions before this call.
   */
  default void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

  /**
   * After a join: the partitions the member owns from now on. Runs before their positions are
   * looked up, so a {@link BrookConsumer#seek} here decides where they start.
   */
  default void onPartitionsAssigned(Collection<TopicPartition> partitions) {}

  /**
   * The member was removed (session expired, broker restarted), fenced, or left because poll was
   * not called within {@code max.poll.interval.ms}: the partitions may belong to another member
   * already and commits are refused. Unlike Kafka, the default does not call {@link
   * #onPartitionsRevoked}: a commit there would fail.
   */
  default void onPartitionsLost(Collection<TopicPartition> partitions) {}
}
