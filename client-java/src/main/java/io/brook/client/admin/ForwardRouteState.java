package io.brook.client.admin;

/** What a forward route is doing (D68). */
public enum ForwardRouteState {
  /** Connecting to the Kafka cluster, reading the target's metadata. */
  STARTING,
  /** Forwarding, or waiting for records. */
  RUNNING,
  /** Paused by an operator. */
  PAUSED,
  /** Kafka failed; retrying after a backoff. */
  BACKING_OFF,
  /** Stopped for good (the broker is shutting down). */
  STOPPED,
  /** A state this client does not know. */
  UNKNOWN
}
