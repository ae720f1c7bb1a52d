package io.brook.broker.groups.assign;

import io.brook.broker.groups.TopicPartition;
import java.util.Map;
import java.util.Set;

/**
 * A KIP-848 server-side assignor: the broker, not a client leader, decides which member consumes
 * which partition. Clients pick one by name ({@code group.remote.assignor}).
 */
public interface ServerAssignor {
  /** The name clients ask for: "uniform" or "range", as Kafka names them. */
  String name();

  /**
   * The target assignment: every member of the spec has an entry (maybe empty), and each partition
   * of a subscribed, existing topic goes to exactly one member subscribed to its topic.
   */
  Map<String, Set<TopicPartition>> assign(AssignmentSpec spec);
}
