package io.brook.broker.groups.assign;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.groups.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ServerAssignorsTest {
  private static MemberSpec sub(String... topics) {
    return new MemberSpec(Set.of(topics), null, Set.of());
  }

  private static List<TopicPartition> all(Map<String, Set<TopicPartition>> a) {
    List<TopicPartition> out = new ArrayList<>();
    a.values().forEach(out::addAll);
    return out;
  }

  @Test
  void theDefaultIsUniformAndBothAreFoundByKafkasNames() {
    assertThat(ServerAssignors.defaultAssignor().name()).isEqualTo("uniform");
    assertThat(ServerAssignors.byName("range")).get().isInstanceOf(RangeAssignor.class);
    assertThat(ServerAssignors.byName("uniform")).get().isInstanceOf(UniformAssignor.class);
    assertThat(ServerAssignors.byName("sticky")).isEmpty();
  }

  @Test
  void rangeGivesContiguousRangesTheFirstMembersOneMore() {
    Map<String, Set<TopicPartition>> a = new RangeAssignor().assign(new AssignmentSpec(
        Map.of("m1", sub("t"), "m2", sub("t"), "m3", sub("t")), Map.of("t", 7)));
    assertThat(a.get("m1")).containsExactlyInAnyOrder(tp("t", 0), tp("t", 1), tp("t", 2));
    assertThat(a.get("m2")).containsExactlyInAnyOrder(tp("t", 3), tp("t", 4));
    assertThat(a.get("m3")).containsExactlyInAnyOrder(tp("t", 5), tp("t", 6));
  }

  @Test
  void rangeCoPartitionsTopicsWithTheSameSubscribers() {
    Map<String, Set<TopicPartition>> a = new RangeAssignor().assign(new AssignmentSpec(
        Map.of("m1", sub("a", "b"), "m2", sub("a", "b")), Map.of("a", 4, "b", 4)));
    for (String m : List.of("m1", "m2")) {
      assertThat(a.get(m).stream().filter(tp -> tp.topic().equals("a")).map(TopicPartition::partition))
          .containsExactlyInAnyOrderElementsOf(
              a.get(m).stream().filter(tp -> tp.topic().equals("b")).map(TopicPartition::partition).toList());
    }
  }

  @Test
  void rangeOrdersStaticMembersByInstanceIdSoARestartedOneGetsTheSameRange() {
    Map<String, Set<TopicPartition>> before = new RangeAssignor().assign(new AssignmentSpec(Map.of(
        "zz", new MemberSpec(Set.of("t"), "i1", Set.of()), "aa", new MemberSpec(Set.of("t"), "i2", Set.of())),
        Map.of("t", 4)));
    Map<String, Set<TopicPartition>> after = new RangeAssignor().assign(new AssignmentSpec(Map.of(
        "00", new MemberSpec(Set.of("t"), "i1", Set.of()), "aa", new MemberSpec(Set.of("t"), "i2", Set.of())),
        Map.of("t", 4)));
    assertThat(after.get("00")).isEqualTo(before.get("zz"));
    assertThat(after.get("aa")).isEqualTo(before.get("aa"));
  }

  @Test
  void bothGiveEveryPartitionOfAnExistingSubscribedTopicToExactlyOneSubscriber() {
    for (ServerAssignor assignor : List.of(new RangeAssignor(), new UniformAssignor())) {
      Map<String, Set<TopicPartition>> a = assignor.assign(new AssignmentSpec(
          Map.of("m1", sub("t", "u"), "m2", sub("t"), "m3", sub("u", "gone")), Map.of("t", 5, "u", 3)));
      assertThat(a).containsOnlyKeys("m1", "m2", "m3");
      assertThat(all(a)).hasSize(8).doesNotHaveDuplicates();
      assertThat(a.get("m2")).allMatch(tp -> tp.topic().equals("t"));
      assertThat(a.get("m3")).allMatch(tp -> tp.topic().equals("u"));
    }
  }

  @Test
  void uniformKeepsWhatMembersHadWhenOneJoins() {
    UniformAssignor uniform = new UniformAssignor();
    Map<String, Set<TopicPartition>> before = uniform.assign(new AssignmentSpec(
        Map.of("m1", sub("t"), "m2", sub("t")), Map.of("t", 6)));
    Map<String, Set<TopicPartition>> after = uniform.assign(new AssignmentSpec(Map.of(
        "m1", new MemberSpec(Set.of("t"), null, before.get("m1")),
        "m2", new MemberSpec(Set.of("t"), null, before.get("m2")),
        "m3", sub("t")), Map.of("t", 6)));
    assertThat(after.get("m3")).hasSize(2);
    assertThat(before.get("m1")).containsAll(after.get("m1"));
    assertThat(before.get("m2")).containsAll(after.get("m2"));
    assertThat(after.get("m1")).hasSize(2);
  }

  @Test
  void uniformBalancesSinglePartitionTopicsAcrossMembers() {
    Map<String, Set<TopicPartition>> a = new UniformAssignor().assign(new AssignmentSpec(
        Map.of("m1", sub("a", "b"), "m2", sub("a", "b")), Map.of("a", 1, "b", 1)));
    assertThat(a.get("m1")).hasSize(1);
    assertThat(a.get("m2")).hasSize(1);
  }

  private static TopicPartition tp(String t, int p) {
    return new TopicPartition(t, p);
  }
}
