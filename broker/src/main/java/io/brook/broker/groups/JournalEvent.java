package io.brook.broker.groups;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * What a group's journal holds: one event per stored record, each a tag byte and its fields. Topic
 * partitions are named once ({@link PartitionKey}) and then referred to by a small key.
 */
sealed interface JournalEvent {

  /** The group's mode and its config overrides. */
  record Config(GroupMode mode, Map<String, String> overrides) implements JournalEvent {}

  /** Offset mode: a rebalance completed with this generation. */
  record Generation(int generation) implements JournalEvent {}

  /** Names a topic partition (by the topic's id too, so a recreated topic starts clean). */
  record PartitionKey(int key, String topic, UUID topicId, int partition) implements JournalEvent {}

  /** Offset mode: a committed offset. */
  record Commit(int key, long offset, long timeMs, String metadata) implements JournalEvent {}

  /** Ack mode: the partition's lowest unsettled offset, with nothing delivered at or after it. */
  record AckStart(int key, long start) implements JournalEvent {}

  /** Ack mode: each offset of the ranges was delivered once more. */
  record Delivered(int key, long[] ranges) implements JournalEvent {}

  /** Ack mode: each offset's last delivery never reached its member: it does not count as an attempt. */
  record Undelivered(int key, long[] ranges) implements JournalEvent {}

  /** Ack mode: the offsets of the ranges are settled (acked or dead-lettered). */
  record Settled(int key, long[] ranges) implements JournalEvent {}

  /**
   * Ack mode, in snapshots: the window from start to next; per offset the delivery attempts, negated
   * minus one when settled.
   */
  record AckWindow(int key, long start, long next, int[] attempts) implements JournalEvent {}

  /** The partition's topic was deleted: its state is gone. */
  record Forget(int key) implements JournalEvent {}

  /** The snapshot that opens a journal is complete. */
  record SnapshotEnd() implements JournalEvent {}

  /** Offset mode: the protocol its members speak from now on (journals without it: BROOK after a Generation). */
  record Protocol(GroupProtocol protocol) implements JournalEvent {}

  /**
   * The group's id (its directory may be a hash of it) and whether a Kafka join or commit created it
   * (it then goes when it is empty and has no offsets). Journals without it: the directory name, explicit.
   */
  record Identity(String name, boolean implicit) implements JournalEvent {}

  static byte[] encode(JournalEvent event) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      if (event instanceof Config c) {
        out.writeByte(1);
        out.writeByte(c.mode().ordinal());
        out.writeInt(c.overrides().size());
        for (Map.Entry<String, String> e : c.overrides().entrySet()) {
          out.writeUTF(e.getKey());
          out.writeUTF(e.getValue());
        }
      } else if (event instanceof Generation g) {
        out.writeByte(2);
        out.writeInt(g.generation());
      } else if (event instanceof PartitionKey k) {
        out.writeByte(3);
        out.writeInt(k.key());
        out.writeUTF(k.topic());
        out.writeLong(k.topicId().getMostSignificantBits());
        out.writeLong(k.topicId().getLeastSignificantBits());
        out.writeInt(k.partition());
      } else if (event instanceof Commit c) {
        out.writeByte(4);
        out.writeInt(c.key());
        out.writeLong(c.offset());
        out.writeLong(c.timeMs());
        out.writeUTF(c.metadata());
      } else if (event instanceof AckStart a) {
        out.writeByte(5);
        out.writeInt(a.key());
        out.writeLong(a.start());
      } else if (event instanceof Delivered d) {
        writeRanges(out, 6, d.key(), d.ranges());
      } else if (event instanceof Settled st) {
        writeRanges(out, 7, st.key(), st.ranges());
      } else if (event instanceof AckWindow w) {
        out.writeByte(8);
        out.writeInt(w.key());
        out.writeLong(w.start());
        out.writeLong(w.next());
        out.writeInt(w.attempts().length);
        for (int a : w.attempts()) {
          out.writeInt(a);
        }
      } else if (event instanceof Forget f) {
        out.writeByte(9);
        out.writeInt(f.key());
      } else if (event instanceof SnapshotEnd) {
        out.writeByte(10);
      } else if (event instanceof Undelivered u) {
        writeRanges(out, 11, u.key(), u.ranges());
      } else if (event instanceof Protocol p) {
        out.writeByte(12);
        out.writeByte(p.protocol().ordinal());
      } else if (event instanceof Identity i) {
        out.writeByte(13);
        out.writeUTF(i.name());
        out.writeBoolean(i.implicit());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static void writeRanges(DataOutputStream out, int tag, int key, long[] ranges) throws IOException {
    out.writeByte(tag);
    out.writeInt(key);
    out.writeInt(ranges.length);
    for (long r : ranges) {
      out.writeLong(r);
    }
  }

  static JournalEvent decode(byte[] bytes) throws IOException {
    DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes));
    int tag = in.readUnsignedByte();
    return switch (tag) {
      case 1 -> {
        GroupMode mode = GroupMode.values()[in.readUnsignedByte()];
        int n = in.readInt();
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
          m.put(in.readUTF(), in.readUTF());
        }
        yield new Config(mode, m);
      }
      case 2 -> new Generation(in.readInt());
      case 3 -> new PartitionKey(in.readInt(), in.readUTF(), new UUID(in.readLong(), in.readLong()), in.readInt());
      case 4 -> new Commit(in.readInt(), in.readLong(), in.readLong(), in.readUTF());
      case 5 -> new AckStart(in.readInt(), in.readLong());
      case 6 -> new Delivered(in.readInt(), readLongs(in));
      case 7 -> new Settled(in.readInt(), readLongs(in));
      case 8 -> {
        int key = in.readInt();
        long start = in.readLong();
        long next = in.readLong();
        int[] attempts = new int[in.readInt()];
        for (int i = 0; i < attempts.length; i++) {
          attempts[i] = in.readInt();
        }
        yield new AckWindow(key, start, next, attempts);
      }
      case 9 -> new Forget(in.readInt());
      case 10 -> new SnapshotEnd();
      case 11 -> new Undelivered(in.readInt(), readLongs(in));
      case 12 -> new Protocol(GroupProtocol.values()[in.readUnsignedByte()]);
      case 13 -> new Identity(in.readUTF(), in.readBoolean());
      default -> throw new IOException("unknown journal event tag " + tag);
    };
  }

  private static long[] readLongs(DataInputStream in) throws IOException {
    long[] a = new long[in.readInt()];
    for (int i = 0; i < a.length; i++) {
      a[i] = in.readLong();
    }
    return a;
  }
}
