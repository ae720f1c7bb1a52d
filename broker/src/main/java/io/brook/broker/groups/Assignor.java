package io.brook.broker.groups;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Assigns partitions to members, topic by topic: balanced (each member subscribed to a topic gets
 * floor or ceil of partitions/members of it) and sticky (a member keeps the partitions it owned, up
 * to the floor of its share), so a rebalance moves as few partitions as it can.
 */
public final class Assignor {
  private Assignor() {}

  /**
   * @param subscriptions member id → topics, for every member taking part
   * @param partitionCounts topic → its partition count, for the topics that exist
   * @param previous the owners before this rebalance
   * @return member id → its partitions (every member has an entry)
   */
  public static Map<String, List<TopicPartition>> assign(Map<String, List<String>> subscriptions,
      Map<String, Integer> partitionCounts, Map<TopicPartition, String> previous) {
    Map<String, List<TopicPartition>> result = new TreeMap<>();
    Map<String, Integer> load = new HashMap<>();
    subscriptions.keySet().forEach(m -> {
      result.put(m, new ArrayList<>());
      load.put(m, 0);
    });
    for (Map.Entry<String, Integer> topic : new TreeMap<>(partitionCounts).entrySet()) {
      List<String> eligible = subscriptions.entrySet().stream()
          .filter(e -> e.getValue().contains(topic.getKey())).map(Map.Entry::getKey).sorted().toList();
      if (eligible.isEmpty()) {
        continue;
      }
      int partitions = topic.getValue();
      int floor = partitions / eligible.size();
      int withExtra = partitions % eligible.size(); // this many members get floor + 1
      Map<String, Integer> count = new HashMap<>();
      eligible.forEach(m -> count.put(m, 0));
      List<TopicPartition> unassigned = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        TopicPartition tp = new TopicPartition(topic.getKey(), p);
        String owner = previous.get(tp);
        if (owner != null && count.containsKey(owner) && count.get(owner) < floor) {
          give(result, load, count, owner, tp);
        } else {
          unassigned.add(tp);
        }
      }
      for (TopicPartition tp : unassigned) {
        String best = null;
        for (String m : eligible) {
          int c = count.get(m);
          boolean full = c > floor || (c == floor && withExtra == 0);
          if (full) {
            continue;
          }
          // Prefer the previous owner, then the member with the fewest here, then overall.
          if (best == null || m.equals(previous.get(tp)) && !best.equals(previous.get(tp))
              || !best.equals(previous.get(tp)) && (c < count.get(best)
                  || c == count.get(best) && load.get(m) < load.get(best))) {
            best = m;
          }
        }
        if (count.get(best) == floor) {
          withExtra--;
        }
        give(result, load, count, best, tp);
      }
    }
    return result;
  }

  private static void give(Map<String, List<TopicPartition>> result, Map<String, Integer> load,
      Map<String, Integer> count, String member, TopicPartition tp) {
    result.get(member).add(tp);
    load.merge(member, 1, Integer::sum);
    count.merge(member, 1, Integer::sum);
  }
}
