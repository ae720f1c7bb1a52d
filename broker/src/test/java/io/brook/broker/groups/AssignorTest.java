package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AssignorTest {
  static Map<TopicPartition, String> owners(Map<String, List<TopicPartition>> a) {
    Map<TopicPartition, String> o = new HashMap<>();
    a.forEach((m, tps) -> tps.forEach(tp -> o.put(tp, m)));
    return o;
  }

  @Test
  void everyPartitionGoesToExactlyOneSubscribedMemberInBalance() {
    Map<String, List<TopicPartition>> a = Assignor.assign(
        Map.of("a", List.of("t", "u"), "b", List.of("t"), "c", List.of("t", "u")),
        Map.of("t", 7, "u", 2), Map.of());
    List<TopicPartition> all = new ArrayList<>();
    a.values().forEach(all::addAll);
    assertThat(all).hasSize(9).doesNotHaveDuplicates();
    assertThat(a.get("b")).allMatch(tp -> tp.topic().equals("t"));
    for (String m : List.of("a", "b", "c")) {
      long t = a.get(m).stream().filter(tp -> tp.topic().equals("t")).count();
      assertThat(t).isBetween(2L, 3L); // 7 over 3 members: 2 or 3 each
    }
    assertThat(a.get("a").stream().filter(tp -> tp.topic().equals("u")).count()).isEqualTo(1);
  }

  @Test
  void aJoiningMemberTakesOnlyItsShareAndTheOthersKeepTheirs() {
    Map<String, List<TopicPartition>> before = Assignor.assign(Map.of("a", List.of("t"), "b", List.of("t")),
        Map.of("t", 6), Map.of());
    Map<String, List<TopicPartition>> after = Assignor.assign(
        Map.of("a", List.of("t"), "b", List.of("t"), "c", List.of("t")), Map.of("t", 6), owners(before));
    assertThat(after.get("c")).hasSize(2);
    assertThat(before.get("a")).containsAll(after.get("a"));
    assertThat(before.get("b")).containsAll(after.get("b"));
    assertThat(after.get("a")).hasSize(2);
  }

  @Test
  void aLeavingMembersPartitionsAreSpreadAndNothingElseMoves() {
    Map<String, List<TopicPartition>> before = Assignor.assign(
        Map.of("a", List.of("t"), "b", List.of("t"), "c", List.of("t")), Map.of("t", 6), Map.of());
    Map<String, List<TopicPartition>> after = Assignor.assign(Map.of("a", List.of("t"), "b", List.of("t")),
        Map.of("t", 6), owners(before));
    assertThat(after.get("a")).hasSize(3).containsAll(before.get("a"));
    assertThat(after.get("b")).hasSize(3).containsAll(before.get("b"));
  }

  @Test
  void moreMembersThanPartitionsLeavesSomeWithNone() {
    Map<String, List<TopicPartition>> a = Assignor.assign(
        Map.of("a", List.of("t"), "b", List.of("t"), "c", List.of("t")), Map.of("t", 2), Map.of());
    assertThat(a.values().stream().mapToInt(List::size).sum()).isEqualTo(2);
    assertThat(a.values()).allMatch(l -> l.size() <= 1);
  }
}
