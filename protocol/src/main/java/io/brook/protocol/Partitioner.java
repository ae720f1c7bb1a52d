package io.brook.protocol;

import java.nio.ByteBuffer;

/**
 * Kafka's default partitioner for keyed records: {@code toPositive(murmur2(key)) % partitions}.
 *
 * <p>It lives beside the contract so the broker and every client compute the same partition for the
 * same key; {@code protocol/testdata/partitioner-vectors.json} (computed by kafka-clients) proves it.
 */
public final class Partitioner {
  private static final int SEED = 0x9747b28c;
  private static final int M = 0x5bd1e995;
  private static final int R = 24;

  private Partitioner() {}

  /** The partition of a keyed record, exactly as Kafka's producer chooses it. */
  public static int partitionForKey(byte[] key, int partitions) {
    if (partitions <= 0) {
      throw new IllegalArgumentException("partitions must be positive, got " + partitions);
    }
    return toPositive(murmur2(key)) % partitions;
  }

  /** As {@link #partitionForKey(byte[], int)}, reading the key's remaining bytes without moving it. */
  public static int partitionForKey(ByteBuffer key, int partitions) {
    byte[] bytes = new byte[key.remaining()];
    key.duplicate().get(bytes);
    return partitionForKey(bytes, partitions);
  }

  /** Kafka's {@code Utils.toPositive}: clears the sign bit (not {@code Math.abs}, which fails on MIN_VALUE). */
  public static int toPositive(int n) {
    return n & 0x7fffffff;
  }

  /** 32-bit murmur2 with Kafka's seed, reading four bytes little-endian at a time. */
  public static int murmur2(byte[] data) {
    int length = data.length;
    int h = SEED ^ length;
    int blocks = length >>> 2;
    for (int i = 0; i < blocks; i++) {
      int at = i << 2;
      int k = (data[at] & 0xff)
          | (data[at + 1] & 0xff) << 8
          | (data[at + 2] & 0xff) << 16
          | (data[at + 3] & 0xff) << 24;
      k *= M;
      k ^= k >>> R;
      k *= M;
      h *= M;
      h ^= k;
    }
    int tail = length & ~3;
    switch (length & 3) {
      case 3:
        h ^= (data[tail + 2] & 0xff) << 16;
        // fall through
      case 2:
        h ^= (data[tail + 1] & 0xff) << 8;
        // fall through
      case 1:
        h ^= data[tail] & 0xff;
        h *= M;
        break;
      default:
        break;
    }
    h ^= h >>> 13;
    h *= M;
    h ^= h >>> 15;
    return h;
  }
}
