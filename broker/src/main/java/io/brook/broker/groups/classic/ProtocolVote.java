package io.brook.broker.groups.classic;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The classic protocol's choice of assignor, as Kafka makes it: among the assignors every member
 * offers, each member votes for the first it prefers; the most votes win, a tie goes to the one the
 * first member lists first.
 */
final class ProtocolVote {
  private ProtocolVote() {}

  /** The assignors every one of these members offers, in the first member's order. */
  static List<String> common(Collection<ClassicMember> members) {
    List<String> candidates = null;
    for (ClassicMember m : members) {
      List<String> names = m.protocols.stream().map(ClassicProtocol::name).toList();
      if (candidates == null) {
        candidates = new ArrayList<>(names);
      } else {
        candidates.retainAll(names);
      }
    }
    return candidates == null ? List.of() : candidates;
  }

  /** The winner, or null when the members have no assignor in common. */
  static String select(Collection<ClassicMember> members) {
    List<String> candidates = common(members);
    if (candidates.isEmpty()) {
      return null;
    }
    Map<String, Integer> votes = new LinkedHashMap<>();
    candidates.forEach(c -> votes.put(c, 0));
    for (ClassicMember m : members) {
      m.protocols.stream().map(ClassicProtocol::name).filter(votes::containsKey).findFirst()
          .ifPresent(choice -> votes.merge(choice, 1, Integer::sum));
    }
    String best = null;
    for (Map.Entry<String, Integer> e : votes.entrySet()) {
      if (best == null || e.getValue() > votes.get(best)) {
        best = e.getKey();
      }
    }
    return best;
  }
}
