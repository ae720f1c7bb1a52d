package io.brook.broker.core;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A forward route at one moment (D68).
 *
 * @param name the route's name in the config
 * @param source a topic name, or a prefix ending in {@code *}
 * @param target the Kafka topic ({@code {topic}} stands for the source topic's name)
 * @param bootstrap the Kafka cluster's bootstrap servers
 * @param state what the route is doing now
 * @param forwardedRecords records Kafka acknowledged since the broker started
 * @param forwardedBytes their key, value and header bytes
 * @param lagRecords records on Brook past the route's cursor, over its partitions
 * @param lagSeconds now minus the timestamp of the oldest record not yet forwarded; 0 when none
 * @param droppedRecords records retention deleted before they were forwarded, since the broker started
 * @param errors failures since the broker started, by kind (e.g. "timeout", "authentication",
 *     "authorization", "unknown_topic", "record_too_large", "network", "other")
 * @param lastError the last failure's message, null when none yet
 * @param lastErrorAtMs when it happened (epoch ms), 0 when none
 * @param partitions the cursor of each source partition
 */
public record ForwardRouteStatus(String name, String source, String target, String bootstrap, State state,
    long forwardedRecords, long forwardedBytes, long lagRecords, double lagSeconds, long droppedRecords,
    Map<String, Long> errors, String lastError, long lastErrorAtMs, List<Cursor> partitions) {

  /** RUNNING: forwarding or waiting for records; PAUSED: by an operator; BACKING_OFF: Kafka failed, retrying. */
  public enum State { STARTING, RUNNING, PAUSED, BACKING_OFF, STOPPED }

  /**
   * @param position the next offset to forward (the committed offset of the route's cursor group)
   * @param endOffset the partition's end offset
   */
  public record Cursor(String topic, int partition, long position, long endOffset) {}

  public ForwardRouteStatus {
    errors = Map.copyOf(errors);
    partitions = List.copyOf(partitions);
  }

  /** INVALID_REQUEST for a name that is no route, naming the routes there are. */
  public static BrokerException unknown(String route, Collection<String> known) {
    return new BrokerException(BrokerError.INVALID_REQUEST, "no forward route '" + route + "'"
        + (known.isEmpty() ? " (no routes are configured)" : " (routes: " + String.join(", ", known) + ")"));
  }
}
