package io.brook.broker.groups.assign;

import io.brook.broker.groups.Assignor;
import io.brook.broker.groups.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Kafka's "uniform" (the default): balanced and sticky. It is the assignor Brook's own offset mode
 * uses (D16's {@link Assignor}): per topic each subscriber gets floor or ceil of its share, a member
 * keeps what it had up to its share, and the overall load breaks ties, so members with the same
 * subscriptions get totals at most one apart. Kafka's UniformAssignor balances heterogeneous
 * subscriptions across topics more evenly; here each topic is balanced on its own.
 */
public final class UniformAssignor implements ServerAssignor {
  @Override
  public String name() {
    return "uniform";
  }

  @Override
  public Map<String, Set<TopicPartition>> assign(AssignmentSpec spec) {
    Map<String, List<String>> subscriptions = new TreeMap<>();
    Map<TopicPartition, String> previous = new HashMap<>();
    spec.members().forEach((id, m) -> {
      subscriptions.put(id, new ArrayList<>(m.topics()));
      m.current().forEach(tp -> previous.put(tp, id));
    });
    Map<String, Set<TopicPartition>> out = new TreeMap<>();
    Assignor.assign(subscriptions, spec.partitionCounts(), previous)
        .forEach((id, tps) -> out.put(id, new TreeSet<>(tps)));
    return out;
  }
}
