package io.brook.broker.kafka.access;

import java.util.function.Predicate;

/**
 * Who sent a Kafka request and what Brook's permissions let it do: the same principals and the same
 * permission table as the gRPC door (produce, consume, admin on topics and groups). Handlers ask it
 * per resource and answer Kafka's *_AUTHORIZATION_FAILED codes themselves.
 */
public interface KafkaCaller {
  /** With auth off: no principal, everything allowed. */
  KafkaCaller OPEN = new KafkaCaller() {
    @Override
    public String principal() {
      return null;
    }

    @Override
    public boolean produce(String topic) {
      return true;
    }

    @Override
    public boolean consume(String topic) {
      return true;
    }

    @Override
    public boolean adminTopic(String topic) {
      return true;
    }

    @Override
    public boolean anyOnTopic(String topic) {
      return true;
    }

    @Override
    public boolean consumeGroup(String group) {
      return true;
    }

    @Override
    public boolean adminGroup(String group) {
      return true;
    }

    @Override
    public boolean anyOnGroup(String group) {
      return true;
    }

    @Override
    public boolean producesAnything() {
      return true;
    }

    @Override
    public Predicate<String> visibleTopics() {
      return t -> true;
    }
  };

  /** The principal, or null with auth off: passed to the core as the owner of members and producer ids. */
  String principal();

  boolean produce(String topic);

  boolean consume(String topic);

  boolean adminTopic(String topic);

  /** Any permission on the topic: it may see that it exists. */
  boolean anyOnTopic(String topic);

  /** Join, heartbeat, leave, commit and fetch offsets as a member of the group. */
  boolean consumeGroup(String group);

  /** Describe, reset, delete the group and its offsets. */
  boolean adminGroup(String group);

  /** Any permission on the group: it may see that it exists (ListGroups, FindCoordinator). */
  boolean anyOnGroup(String group);

  /** May produce to some topic (InitProducerId names none). */
  boolean producesAnything();

  /** The topics it may see (Metadata, describe). */
  Predicate<String> visibleTopics();
}
