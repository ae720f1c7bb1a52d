package io.brook.broker.groups.consumer;

import io.brook.broker.groups.MembershipHost;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/** A group's host with a clock the test moves and topics it sets: the engine with nothing else around it. */
final class FakeHost implements MembershipHost {
  long now = 1_000;
  int generation;
  boolean diskFull;
  int emptied;
  final Map<String, Integer> topics = new TreeMap<>();

  static UUID id(String topic) {
    return UUID.nameUUIDFromBytes(topic.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public String groupName() {
    return "billing";
  }

  @Override
  public long nowMs() {
    return now;
  }

  @Override
  public long minSessionTimeoutMs() {
    return 100;
  }

  @Override
  public long maxSessionTimeoutMs() {
    return 1_800_000;
  }

  @Override
  public int generation() {
    return generation;
  }

  @Override
  public boolean journalGeneration(int next) {
    if (diskFull) {
      return false;
    }
    generation = next;
    return true;
  }

  @Override
  public Map<String, Integer> partitionCounts(Collection<String> names) {
    Map<String, Integer> out = new TreeMap<>();
    names.forEach(t -> {
      if (topics.containsKey(t)) {
        out.put(t, topics.get(t));
      }
    });
    return out;
  }

  @Override
  public Optional<UUID> topicId(String topic) {
    return topics.containsKey(topic) ? Optional.of(id(topic)) : Optional.empty();
  }

  @Override
  public Optional<String> topicName(UUID id) {
    return topics.keySet().stream().filter(t -> id(t).equals(id)).findFirst();
  }

  @Override
  public List<String> topicNames() {
    return List.copyOf(topics.keySet());
  }

  @Override
  public void membershipEmptied() {
    emptied++;
  }

  /** The engine that took over the group's members (a downgrade), or null. */
  io.brook.broker.groups.Membership replacedBy;

  @Override
  public void replaceMembership(java.util.function.Function<MembershipHost, io.brook.broker.groups.Membership> next) {
    replacedBy = next.apply(this);
  }
}
