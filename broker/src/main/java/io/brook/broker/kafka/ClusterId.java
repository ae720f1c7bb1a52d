package io.brook.broker.kafka;

import org.apache.kafka.common.Uuid;

/**
 * The form of the cluster id Kafka clients see (Metadata, DescribeCluster): a random UUID in Kafka's
 * 22-character base64 form. The server keeps it in the data directory, made once, so that it is the
 * same across restarts (clients that see it change take the broker for another cluster).
 */
public final class ClusterId {
  private ClusterId() {}

  public static String random() {
    return Uuid.randomUuid().toString();
  }

  /** Whether {@code id} is such a UUID. */
  public static boolean valid(String id) {
    try {
      Uuid.fromString(id);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
