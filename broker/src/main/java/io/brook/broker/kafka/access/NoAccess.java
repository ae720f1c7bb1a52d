package io.brook.broker.kafka.access;

import java.util.function.Predicate;

/**
 * The caller of a connection that has not authenticated yet (auth on): allowed nothing. The listener
 * lets such a connection send only ApiVersions and SASL, which ask no permission; this is what a
 * handler would see if that ever changed.
 */
final class NoAccess implements KafkaCaller {
  static final NoAccess INSTANCE = new NoAccess();

  private NoAccess() {}

  @Override
  public String principal() {
    return null;
  }

  @Override
  public boolean produce(String topic) {
    return false;
  }

  @Override
  public boolean consume(String topic) {
    return false;
  }

  @Override
  public boolean adminTopic(String topic) {
    return false;
  }

  @Override
  public boolean anyOnTopic(String topic) {
    return false;
  }

  @Override
  public boolean consumeGroup(String group) {
    return false;
  }

  @Override
  public boolean adminGroup(String group) {
    return false;
  }

  @Override
  public boolean anyOnGroup(String group) {
    return false;
  }

  @Override
  public boolean producesAnything() {
    return false;
  }

  @Override
  public Predicate<String> visibleTopics() {
    return t -> false;
  }
}
