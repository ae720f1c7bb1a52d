package io.brook.broker.groups.assign;

import io.brook.broker.groups.TopicPartition;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Kafka's "range": per topic, its subscribers in a fixed order (static members by instance id
 * first, then the others by member id) get contiguous ranges of partitions, the first
 * {@code partitions % members} one more. Topics with the same partition count and subscribers are
 * co-partitioned: partition i of each goes to the same member, which is what joins of keyed topics
 * rely on.
 */
public final class RangeAssignor implements ServerAssignor {
  private static final Comparator<Map.Entry<String, MemberSpec>> ORDER = Comparator
      .comparing((Map.Entry<String, MemberSpec> e) -> e.getValue().instanceId() == null)
      .thenComparing(e -> e.getValue().instanceId() == null ? "" : e.getValue().instanceId())
      .thenComparing(Map.Entry::getKey);

  @Override
  public String name() {
    return "range";
  }

  @Override
  public Map<String, Set<TopicPartition>> assign(AssignmentSpec spec) {
    Map<String, Set<TopicPartition>> out = new TreeMap<>();
    spec.members().keySet().forEach(id -> out.put(id, new TreeSet<>()));
    new TreeMap<>(spec.partitionCounts()).forEach((topic, partitions) -> {
      List<String> subscribers = spec.members().entrySet().stream()
          .filter(e -> e.getValue().topics().contains(topic)).sorted(ORDER).map(Map.Entry::getKey).toList();
      if (subscribers.isEmpty()) {
        return;
      }
      int per = partitions / subscribers.size();
      int extra = partitions % subscribers.size();
      int next = 0;
      for (int i = 0; i < subscribers.size(); i++) {
        int count = per + (i < extra ? 1 : 0);
        for (int p = next; p < next + count; p++) {
          out.get(subscribers.get(i)).add(new TopicPartition(topic, p));
        }
        next += count;
      }
    });
    return out;
  }
}
