package io.brook.broker.groups;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Cooperative (incremental) rebalancing of an offset group (D64), as Kafka's cooperative protocol
 * and the KIP-848 reconciler do it: a partition is revoked before it is reassigned. A cooperative
 * member keeps its partitions while it rejoins and reports them (owned); when the assignor moves one
 * of them to another member, the new owner does not get it in that generation, the old owner's
 * answer no longer has it (it revokes it, commits and rejoins), and the group rebalances again at
 * once to hand it over. An eager member owns nothing when it rejoins.
 */
final class CooperativeHandover {
  private CooperativeHandover() {}

  /**
   * What one completed rebalance answers.
   *
   * @param answers member id → the partitions its answer has: its target less those another member still owns
   * @param releasing member id → the partitions it owns that the target gives to another member: dropped
   *     from its answer, it still holds them until it rejoins
   */
  record Plan(Map<String, List<TopicPartition>> answers, Map<String, Set<TopicPartition>> releasing) {
    /** Partitions wait for their old owner: the group must rebalance again to hand them over. */
    boolean handoverPending() {
      return releasing.values().stream().anyMatch(s -> !s.isEmpty());
    }
  }

  /**
   * What a member still owns as it rejoins: for a cooperative member what it reports, less what the
   * broker did not assign it in its last generation; nothing for an eager member.
   */
  /**
   * What a join's owned list is kept as: for a cooperative member, the partitions of it that the member
   * was last answered (the rest cannot be its own), so a long or bogus list costs nothing; none for an
   * eager member.
   */
  static List<TopicPartition> reported(boolean cooperative, List<TopicPartition> owned, List<TopicPartition> delivered) {
    if (!cooperative || owned.isEmpty()) {
      return List.of();
    }
    Set<TopicPartition> last = new HashSet<>(delivered);
    return owned.stream().filter(last::contains).distinct().toList();
  }

  static Set<TopicPartition> owned(boolean cooperative, List<TopicPartition> reported, List<TopicPartition> lastAssignment) {
    if (!cooperative) {
      return Set.of();
    }
    Set<TopicPartition> owned = new HashSet<>(reported);
    owned.retainAll(new HashSet<>(lastAssignment));
    return owned;
  }

  /**
   * @param target member id → its partitions as the assignor wants them (every member has an entry)
   * @param owned member id → the partitions it still owns ({@link #owned})
   */
  static Plan plan(Map<String, List<TopicPartition>> target, Map<String, Set<TopicPartition>> owned) {
    Map<TopicPartition, String> ownerOf = new HashMap<>();
    owned.forEach((member, tps) -> tps.forEach(tp -> ownerOf.put(tp, member)));
    Map<String, List<TopicPartition>> answers = new TreeMap<>();
    Map<String, Set<TopicPartition>> releasing = new TreeMap<>();
    target.keySet().forEach(m -> releasing.put(m, new HashSet<>()));
    target.forEach((member, tps) -> {
      List<TopicPartition> answer = new ArrayList<>();
      for (TopicPartition tp : tps) {
        String oldOwner = ownerOf.get(tp);
        if (oldOwner == null || oldOwner.equals(member) || !target.containsKey(oldOwner)) {
          answer.add(tp);
        } else {
          releasing.get(oldOwner).add(tp);
        }
      }
      answers.put(member, List.copyOf(answer));
    });
    return new Plan(answers, releasing);
  }

  /**
   * Since which generation a member has held each partition it holds after this rebalance: its
   * answer and what it is releasing. A partition it kept keeps its generation; the others start now.
   */
  static Map<TopicPartition, Integer> heldSince(Map<TopicPartition, Integer> before, Set<TopicPartition> owned,
      List<TopicPartition> answer, Set<TopicPartition> releasing, int generation) {
    Map<TopicPartition, Integer> since = new HashMap<>();
    for (TopicPartition tp : answer) {
      since.put(tp, owned.contains(tp) ? before.getOrDefault(tp, generation) : generation);
    }
    for (TopicPartition tp : releasing) { // owned, by construction
      since.put(tp, before.getOrDefault(tp, generation));
    }
    return since;
  }

  /**
   * Who holds each partition now, for DescribeGroup: the owners of the last generation, except that a
   * withheld partition stays its old owner's until the handover.
   */
  static Map<TopicPartition, String> holders(Map<TopicPartition, String> owners, Collection<OffsetMember> members) {
    Map<TopicPartition, String> holders = new HashMap<>(owners);
    for (OffsetMember m : members) {
      m.releasing.forEach(tp -> holders.put(tp, m.id));
    }
    return holders;
  }

  /**
   * Whether a cooperative member may commit these partitions with an older generation: its rejoin is
   * under way while it keeps fetching, and the answer that moves it on may cross its commit. Taken
   * when it has held every one of them since that generation (KIP-848's per-partition epoch check).
   */
  static boolean mayCommitAt(int memberGeneration, Map<TopicPartition, Integer> heldSince, List<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      Integer since = heldSince.get(tp);
      if (since == null || since > memberGeneration) {
        return false;
      }
    }
    return true;
  }
}
