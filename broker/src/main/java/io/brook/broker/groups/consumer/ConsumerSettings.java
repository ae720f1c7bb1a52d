package io.brook.broker.groups.consumer;

/**
 * The broker's KIP-848 settings: Kafka decides these on the broker, not the client.
 *
 * @param heartbeatIntervalMs group.consumer.heartbeat.interval.ms: how often members heartbeat
 * @param sessionTimeoutMs group.consumer.session.timeout.ms: a member silent this long is removed
 * @param migration group.consumer.migration.policy: when a group changes protocol with members in it
 * @param classicInitialDelayMs group.initial.rebalance.delay.ms, for the classic group a downgrade makes
 */
public record ConsumerSettings(int heartbeatIntervalMs, long sessionTimeoutMs, MigrationPolicy migration,
    long classicInitialDelayMs) {

  /** Kafka's defaults for the migration (bidirectional) and the classic delay (3 s). */
  public ConsumerSettings(int heartbeatIntervalMs, long sessionTimeoutMs) {
    this(heartbeatIntervalMs, sessionTimeoutMs, MigrationPolicy.BIDIRECTIONAL, 3000);
  }
}
