package io.brook.broker.security;

import static io.brook.broker.security.Permission.ADMIN;
import static io.brook.broker.security.Permission.CONSUME;
import static io.brook.broker.security.Permission.PRODUCE;
import static io.brook.broker.security.ResourceType.GROUP;
import static io.brook.broker.security.ResourceType.TOPIC;

import java.util.function.Predicate;

/**
 * What one principal may do, in protocol-neutral words: the permissions file's grants as the gRPC
 * rules ({@link MethodRules}) read them, for a door that checks per resource itself (Kafka's).
 * Compiled once per principal; every check is a lookup.
 */
public final class Access {
  private final Principal principal;

  Access(Principal principal) {
    this.principal = principal;
  }

  /** The principal's name: the owner of the members and producer ids it makes. */
  public String principal() {
    return principal.name();
  }

  public boolean produce(String topic) {
    return grants().allows(PRODUCE, TOPIC, topic);
  }

  public boolean consume(String topic) {
    return grants().allows(CONSUME, TOPIC, topic);
  }

  public boolean adminTopic(String topic) {
    return grants().allows(ADMIN, TOPIC, topic);
  }

  /** Any permission on the topic: it may see that the topic exists (DescribeTopic, ListTopics). */
  public boolean anyOnTopic(String topic) {
    return grants().allowsAny(TOPIC, topic);
  }

  public boolean consumeGroup(String group) {
    return grants().allows(CONSUME, GROUP, group);
  }

  public boolean adminGroup(String group) {
    return grants().allows(ADMIN, GROUP, group);
  }

  /** Any permission on the group (ListGroups). */
  public boolean anyOnGroup(String group) {
    return grants().allowsAny(GROUP, group);
  }

  /** Produce on at least one topic pattern: gRPC's InitProducer rule (the request names no topic). */
  public boolean producesAnything() {
    return grants().hasAny(PRODUCE, TOPIC);
  }

  /** The topics it may see, as {@link Caller#visibleTopics()}. */
  public Predicate<String> visibleTopics() {
    return this::anyOnTopic;
  }

  private Grants grants() {
    return principal.grants();
  }
}
