package io.brook.client;

/** How durable a produce must be before the broker answers it. */
public enum Durability {
  /** Written to the broker's memory-mapped log: survives a crash of the broker process. */
  WRITTEN,
  /** Forced to the device before the answer: survives power loss. Concurrent producers share forces. */
  SYNCED
}
