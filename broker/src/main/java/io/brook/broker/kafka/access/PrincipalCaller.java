package io.brook.broker.kafka.access;

import io.brook.broker.security.Access;
import java.util.function.Predicate;

/** A connection that authenticated: its principal and the grants of the permissions file (auth on). */
public final class PrincipalCaller implements KafkaCaller {
  private final Access access;

  public PrincipalCaller(Access access) {
    this.access = access;
  }

  @Override
  public String principal() {
    return access.principal();
  }

  @Override
  public boolean produce(String topic) {
    return access.produce(topic);
  }

  @Override
  public boolean consume(String topic) {
    return access.consume(topic);
  }

  @Override
  public boolean adminTopic(String topic) {
    return access.adminTopic(topic);
  }

  @Override
  public boolean anyOnTopic(String topic) {
    return access.anyOnTopic(topic);
  }

  @Override
  public boolean consumeGroup(String group) {
    return access.consumeGroup(group);
  }

  @Override
  public boolean adminGroup(String group) {
    return access.adminGroup(group);
  }

  @Override
  public boolean anyOnGroup(String group) {
    return access.anyOnGroup(group);
  }

  @Override
  public boolean producesAnything() {
    return access.producesAnything();
  }

  @Override
  public Predicate<String> visibleTopics() {
    return access.visibleTopics();
  }

  @Override
  public String toString() {
    return "principal " + principal();
  }
}
