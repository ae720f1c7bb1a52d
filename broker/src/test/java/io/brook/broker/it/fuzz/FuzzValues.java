package io.brook.broker.it.fuzz;

import com.google.protobuf.ByteString;
import io.brook.broker.it.HostileNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Field values that find bugs: extremes and off-by-ones for numbers; for strings the names that
 * exist on the fuzzed broker (so calls get past "unknown topic"), config keys and values, hostile
 * names, random valid names and random unicode.
 */
final class FuzzValues {
  /** Topics, groups and a member id the fuzz test creates before it starts. */
  static final List<String> KNOWN = List.of("fuzz-a", "fuzz-b", "fuzz-ack", "fuzz-offset", "fuzz-member");
  private static final List<String> CONFIG = List.of("retention.ms", "retention.bytes", "segment.roll",
      "max.record.bytes", "max.message.bytes", "message.timestamp.type", "ack.timeout.ms", "max.delivery.attempts",
      "dead.letter.topic", "max.unsettled.per.partition", "auto.offset.reset", "1s", "1h", "-1", "0", "1",
      "100", "CreateTime", "LogAppendTime", "earliest", "latest", "9223372036854775807", "1e3", " 5", "fuzz-a");
  private static final List<String> HOSTILE = new ArrayList<>(HostileNames.ALL.keySet());
  private static final String NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
  private static final int[] INT_EDGES = {0, 1, -1, 2, Integer.MAX_VALUE, Integer.MIN_VALUE, Integer.MAX_VALUE - 1,
      Integer.MIN_VALUE + 1, 255, 256, 65535, 65536, 1 << 24, Short.MAX_VALUE, Short.MAX_VALUE + 1, 10_000, 100_000};
  private static final long[] LONG_EDGES = {0, 1, -1, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1,
      Long.MIN_VALUE + 1, Integer.MAX_VALUE, Integer.MIN_VALUE, 1L << 32, 1L << 53, 4_102_444_800_000L};
  /** Fixed, not the clock: the same seed must give the same messages. */
  private static final long AROUND_NOW_MS = 1_795_000_000_000L;

  private final Random random;

  FuzzValues(Random random) {
    this.random = random;
  }

  /** Mostly small (partitions, offsets, counts that exist), sometimes extreme or anything. */
  int anyInt() {
    return switch (random.nextInt(6)) {
      case 0, 1 -> random.nextInt(4);
      case 2 -> INT_EDGES[random.nextInt(INT_EDGES.length)];
      case 3 -> random.nextInt(2001) - 1000;
      default -> random.nextInt();
    };
  }

  long anyLong() {
    return switch (random.nextInt(6)) {
      case 0, 1 -> random.nextInt(30);
      case 2 -> LONG_EDGES[random.nextInt(LONG_EDGES.length)];
      case 3 -> AROUND_NOW_MS + random.nextInt(2_000_000) - 1_000_000; // timestamps near the records'
      default -> random.nextLong();
    };
  }

  String anyString() {
    return switch (random.nextInt(10)) {
      case 0, 1, 2 -> KNOWN.get(random.nextInt(KNOWN.size()));
      case 3 -> CONFIG.get(random.nextInt(CONFIG.size()));
      case 4, 5 -> HOSTILE.get(random.nextInt(HOSTILE.size()));
      case 6, 7 -> validName();
      default -> unicode(random.nextInt(20) == 0 ? 5000 : random.nextInt(40));
    };
  }

  /** A name the broker accepts: creates new topics and groups (up to the broker's limits). */
  String validName() {
    int length = random.nextInt(8) == 0 ? 249 : 1 + random.nextInt(12);
    StringBuilder b = new StringBuilder("f");
    while (b.length() < length) {
      b.append(NAME_CHARS.charAt(random.nextInt(NAME_CHARS.length())));
    }
    return b.toString();
  }

  /** Any UTF-16 code units, lone surrogates included (protobuf writes those as '?'). */
  String unicode(int length) {
    StringBuilder b = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      b.append(random.nextBoolean() ? (char) (32 + random.nextInt(95)) : (char) random.nextInt(0x10000));
    }
    return b.toString();
  }

  /** Empty, small, sometimes large (records over max.message.bytes, requests over max.request.bytes). */
  ByteString anyBytes() {
    int size = switch (random.nextInt(20)) {
      case 0, 1, 2, 3, 4 -> 0;
      case 5 -> 8192 + random.nextInt(8192);
      case 6 -> random.nextInt(4) == 0 ? 1_100_000 : 0;
      default -> random.nextInt(64);
    };
    byte[] bytes = new byte[size];
    random.nextBytes(bytes);
    return ByteString.copyFrom(bytes);
  }
}
