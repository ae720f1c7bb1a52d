package io.brook.broker.disk;

import java.util.Locale;

/**
 * The kinds of write the disk guard decides on. Data (produce, new partitions) stops first, at the
 * produce threshold; metadata (what lets consumers drain: commits, acks, dead letters) goes on in
 * the headroom below it and stops only when the headroom is used up too.
 */
public enum DiskWrite {
  PRODUCE(false),
  /** CreateTopic and CreatePartitions: new partitions only exist to take data. */
  TOPIC_CREATE(false),
  GROUP_COMMIT(true),
  /** Acks and rejecting nacks of ack mode (the settles that are journaled). */
  ACK(true),
  /** A record copied to a dead-letter topic: it is how a consumer settles a record it cannot process. */
  DEAD_LETTER(true),
  GROUP_CREATE(true),
  GROUP_CONFIG(true),
  GROUP_RESET(true);

  private final boolean metadata;

  DiskWrite(boolean metadata) {
    this.metadata = metadata;
  }

  /** Whether the write may use the headroom below the produce threshold. */
  public boolean metadata() {
    return metadata;
  }

  /** The name metrics and stats use: {@code produce}, {@code group_commit}, … */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
