package io.brook.broker.groups.classic;

import io.brook.broker.groups.MembershipHost;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** A group as an engine sees it, with a clock the test moves and a journal the test may fill up. */
final class FakeHost implements MembershipHost {
  long nowMs = 1_000_000;
  int generation;
  boolean journalAllowed = true;
  int emptied;

  @Override
  public String groupName() {
    return "billing";
  }

  @Override
  public long nowMs() {
    return nowMs;
  }

  @Override
  public long minSessionTimeoutMs() {
    return 1_000;
  }

  @Override
  public long maxSessionTimeoutMs() {
    return 60_000;
  }

  @Override
  public int generation() {
    return generation;
  }

  @Override
  public boolean journalGeneration(int next) {
    if (!journalAllowed) {
      return false;
    }
    generation = next;
    return true;
  }

  @Override
  public Map<String, Integer> partitionCounts(Collection<String> topics) {
    return Map.of();
  }

  @Override
  public Optional<UUID> topicId(String topic) {
    return Optional.empty();
  }

  @Override
  public Optional<String> topicName(UUID id) {
    return Optional.empty();
  }

  @Override
  public List<String> topicNames() {
    return List.of();
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
