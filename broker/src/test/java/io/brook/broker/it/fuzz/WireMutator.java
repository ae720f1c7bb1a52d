package io.brook.broker.it.fuzz;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Breaks valid protobuf bytes the ways a broken or hostile client would: bit flips, truncation,
 * corrupted length fields (lying about the size of a string, bytes or nested message), inserted and
 * duplicated slices, unknown and invalid tags, deep group nesting, or random bytes altogether.
 */
final class WireMutator {
  private final Random random;

  WireMutator(Random random) {
    this.random = random;
  }

  byte[] mutate(byte[] valid) {
    byte[] b = valid;
    int rounds = 1 + random.nextInt(3);
    for (int i = 0; i < rounds; i++) {
      b = mutateOnce(b);
    }
    return b;
  }

  private byte[] mutateOnce(byte[] b) {
    return switch (random.nextInt(9)) {
      case 0 -> flipBits(b);
      case 1 -> b.length == 0 ? b : Arrays.copyOf(b, random.nextInt(b.length));
      case 2, 3 -> corruptLength(b);
      case 4 -> insert(b, randomBytes(1 + random.nextInt(16)));
      case 5 -> duplicateSlice(b);
      case 6 -> insert(b, oddField());
      case 7 -> insert(b, deepGroups());
      default -> randomBytes(random.nextInt(512));
    };
  }

  private byte[] flipBits(byte[] b) {
    if (b.length == 0) {
      return b;
    }
    byte[] out = b.clone();
    int flips = 1 + random.nextInt(8);
    for (int i = 0; i < flips; i++) {
      int at = random.nextInt(out.length);
      out[at] ^= (byte) (1 << random.nextInt(8));
    }
    return out;
  }

  /** Rewrites the length varint of a length-delimited field (top level or nested) with a lie. */
  private byte[] corruptLength(byte[] b) {
    List<int[]> lengths = new ArrayList<>();
    findLengths(b, 0, b.length, lengths, 0);
    if (lengths.isEmpty()) {
      return flipBits(b);
    }
    int[] l = lengths.get(random.nextInt(lengths.size())); // {start of varint, its size, value}
    long lie = switch (random.nextInt(5)) {
      case 0 -> 0;
      case 1 -> l[2] + 1 + random.nextInt(10);
      case 2 -> Math.max(0, l[2] - 1 - random.nextInt(3));
      case 3 -> 0xFFFFFFFFL; // 4 GiB: more than any message
      default -> Integer.MAX_VALUE;
    };
    ByteArrayOutputStream out = new ByteArrayOutputStream(b.length + 10);
    out.write(b, 0, l[0]);
    writeVarint(out, lie);
    out.write(b, l[0] + l[1], b.length - l[0] - l[1]);
    return out.toByteArray();
  }

  /** Collects length-delimited fields, recursing into payloads that parse as messages. */
  private static boolean findLengths(byte[] b, int from, int to, List<int[]> found, int depth) {
    int at = from;
    List<int[]> here = new ArrayList<>();
    while (at < to) {
      long[] tag = readVarint(b, at, to);
      if (tag == null || tag[0] == 0) {
        return false;
      }
      at += (int) tag[1];
      switch ((int) (tag[0] & 7)) {
        case 0 -> {
          long[] v = readVarint(b, at, to);
          if (v == null) {
            return false;
          }
          at += (int) v[1];
        }
        case 1 -> at += 8;
        case 5 -> at += 4;
        case 2 -> {
          long[] len = readVarint(b, at, to);
          if (len == null || len[0] < 0 || len[0] > to - at - len[1]) {
            return false;
          }
          here.add(new int[] {at, (int) len[1], (int) len[0]});
          int payload = at + (int) len[1];
          if (depth < 8) {
            findLengths(b, payload, payload + (int) len[0], here, depth + 1);
          }
          at = payload + (int) len[0];
        }
        default -> {
          return false;
        }
      }
    }
    if (at != to) {
      return false;
    }
    found.addAll(here);
    return true;
  }

  /** {value, bytes read}, or null when the varint runs past {@code to} or over 10 bytes. */
  private static long[] readVarint(byte[] b, int at, int to) {
    long v = 0;
    for (int i = 0; i < 10 && at + i < to; i++) {
      v |= (long) (b[at + i] & 0x7F) << (7 * i);
      if ((b[at + i] & 0x80) == 0) {
        return new long[] {v, i + 1};
      }
    }
    return null;
  }

  private static void writeVarint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  private byte[] insert(byte[] b, byte[] extra) {
    int at = b.length == 0 ? 0 : random.nextInt(b.length + 1);
    byte[] out = new byte[b.length + extra.length];
    System.arraycopy(b, 0, out, 0, at);
    System.arraycopy(extra, 0, out, at, extra.length);
    System.arraycopy(b, at, out, at + extra.length, b.length - at);
    return out;
  }

  private byte[] duplicateSlice(byte[] b) {
    if (b.length == 0) {
      return b;
    }
    int from = random.nextInt(b.length);
    int to = from + 1 + random.nextInt(b.length - from);
    return insert(b, Arrays.copyOfRange(b, from, to));
  }

  /** A field with a random number and wire type: unknown fields, wrong types, invalid wire types 6 and 7. */
  private byte[] oddField() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int field = random.nextBoolean() ? 1 + random.nextInt(12) : random.nextInt(1 << 29);
    int wireType = random.nextInt(8);
    writeVarint(out, ((long) field << 3) | wireType);
    switch (wireType) {
      case 0 -> writeVarint(out, random.nextLong());
      case 1 -> out.writeBytes(randomBytes(8));
      case 2 -> {
        byte[] payload = randomBytes(random.nextInt(32));
        writeVarint(out, payload.length);
        out.writeBytes(payload);
      }
      case 5 -> out.writeBytes(randomBytes(4));
      default -> out.writeBytes(randomBytes(random.nextInt(4))); // groups and invalid wire types
    }
    return out.toByteArray();
  }

  /** Nested start-group tags, deeper than protobuf's recursion limit of 100 at times. */
  private byte[] deepGroups() {
    int depth = random.nextBoolean() ? 1 + random.nextInt(20) : 90 + random.nextInt(200);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < depth; i++) {
      writeVarint(out, (15L << 3) | 3);
    }
    if (random.nextBoolean()) {
      for (int i = 0; i < depth; i++) {
        writeVarint(out, (15L << 3) | 4);
      }
    }
    return out.toByteArray();
  }

  private byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }
}
