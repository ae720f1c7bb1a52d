package io.brook.broker.producers;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.CheckedInputStream;
import java.util.zip.CheckedOutputStream;

/**
 * One partition's idempotent producers, with Kafka's semantics: per producer the epoch and the last
 * {@value #WINDOW} batches' sequence ranges with their offsets. A batch that repeats one of them is a
 * retry and is answered with the first write's offsets; the next batch must start right after the
 * last; an older epoch is fenced. Not thread-safe: the partition serializes check, append and record.
 */
public final class ProducerState {
  public static final int WINDOW = 5;
  private static final int SNAPSHOT_VERSION = 1;

  /** A batch a producer wrote: its sequence range and where it landed. */
  public record Batch(int firstSeq, int lastSeq, long baseOffset, int count, long appendTimeMs) {}

  private static final class Entry {
    short epoch;
    long lastAppendMs;
    final ArrayDeque<Batch> batches = new ArrayDeque<>(WINDOW);
  }

  private final Map<Long, Entry> producers = new HashMap<>();

  /** Sequences wrap from Integer.MAX_VALUE to 0, as Kafka's do. */
  static int addSeq(int seq, int n) {
    return (int) (((long) seq + n) % (1L << 31));
  }

  /**
   * Decides what to do with a batch.
   *
   * @return the earlier write when the batch is a retry of one of the last five, else null (append it)
   * @throws BrokerException OUT_OF_ORDER_SEQUENCE, PRODUCER_FENCED or UNKNOWN_PRODUCER_ID
   */
  public Batch check(long producerId, short epoch, int baseSeq, int count) {
    Entry e = producers.get(producerId);
    if (e == null) {
      if (baseSeq != 0) {
        throw new BrokerException(BrokerError.UNKNOWN_PRODUCER_ID, "no state for producer " + producerId
            + " on this partition (it expired, or its first batch here did not start at sequence 0): got sequence "
            + baseSeq + "; call InitProducer again");
      }
      return null;
    }
    if (epoch < e.epoch) {
      throw new BrokerException(BrokerError.PRODUCER_FENCED, "producer " + producerId + " epoch " + epoch
          + " is fenced: epoch " + e.epoch + " has written since");
    }
    if (epoch > e.epoch) {
      if (baseSeq != 0) {
        throw new BrokerException(BrokerError.OUT_OF_ORDER_SEQUENCE, "producer " + producerId + " epoch " + epoch
            + " is new on this partition and must start at sequence 0, got " + baseSeq);
      }
      return null;
    }
    int lastSeq = addSeq(baseSeq, count - 1);
    for (Batch b : e.batches) {
      if (b.firstSeq() == baseSeq && b.lastSeq() == lastSeq) {
        return b;
      }
    }
    int expected = addSeq(e.batches.peekLast().lastSeq(), 1);
    if (baseSeq != expected) {
      throw new BrokerException(BrokerError.OUT_OF_ORDER_SEQUENCE, "producer " + producerId + " epoch " + epoch
          + ": expected sequence " + expected + ", got " + baseSeq + " (a gap, or a batch older than the last "
          + WINDOW + ")");
    }
    return null;
  }

  /** Records a batch that was appended (also used to rebuild the state from the log). */
  public void record(long producerId, short epoch, int baseSeq, int count, long baseOffset, long appendTimeMs) {
    Entry e = producers.computeIfAbsent(producerId, id -> new Entry());
    if (epoch != e.epoch || e.batches.isEmpty()) {
      e.batches.clear();
    }
    e.epoch = epoch;
    e.lastAppendMs = Math.max(e.lastAppendMs, appendTimeMs);
    if (e.batches.size() == WINDOW) {
      e.batches.removeFirst();
    }
    e.batches.addLast(new Batch(baseSeq, addSeq(baseSeq, count - 1), baseOffset, count, appendTimeMs));
  }

  public int size() {
    return producers.size();
  }

  /** Forgets producers that have not written since {@code olderThanMs}; returns how many. */
  public int expire(long olderThanMs) {
    int removed = 0;
    for (Iterator<Entry> it = producers.values().iterator(); it.hasNext(); ) {
      if (it.next().lastAppendMs < olderThanMs) {
        it.remove();
        removed++;
      }
    }
    return removed;
  }

  /**
   * Writes the state as of log offset {@code offset} (everything below it is in the state), to a
   * temporary file that is forced and renamed over the old snapshot.
   */
  public void writeSnapshot(Path file, long offset) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    CRC32 crc = new CRC32();
    try (OutputStream raw = Files.newOutputStream(tmp);
        DataOutputStream out = new DataOutputStream(new CheckedOutputStream(new java.io.BufferedOutputStream(raw), crc))) {
      out.writeInt(SNAPSHOT_VERSION);
      out.writeLong(offset);
      out.writeInt(producers.size());
      for (Map.Entry<Long, Entry> p : producers.entrySet()) {
        Entry e = p.getValue();
        out.writeLong(p.getKey());
        out.writeShort(e.epoch);
        out.writeLong(e.lastAppendMs);
        out.writeByte(e.batches.size());
        for (Batch b : e.batches) {
          out.writeInt(b.firstSeq());
          out.writeInt(b.lastSeq());
          out.writeLong(b.baseOffset());
          out.writeInt(b.count());
          out.writeLong(b.appendTimeMs());
        }
      }
      out.flush();
      new DataOutputStream(raw).writeLong(crc.getValue());
    }
    try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      c.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel d = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
      d.force(true);
    }
  }

  /** A state loaded from a snapshot, and the log offset to continue rebuilding from. */
  public record Loaded(ProducerState state, long offset) {}

  /** Reads a snapshot; null when there is none or it is damaged (then the log alone rebuilds it). */
  public static Loaded readSnapshot(Path file) {
    if (!Files.exists(file)) {
      return null;
    }
    CRC32 crc = new CRC32();
    try (InputStream raw = new java.io.BufferedInputStream(Files.newInputStream(file))) {
      DataInputStream in = new DataInputStream(new CheckedInputStream(raw, crc));
      if (in.readInt() != SNAPSHOT_VERSION) {
        return null;
      }
      long offset = in.readLong();
      ProducerState state = new ProducerState();
      int n = in.readInt();
      for (int i = 0; i < n; i++) {
        long id = in.readLong();
        Entry e = new Entry();
        e.epoch = in.readShort();
        e.lastAppendMs = in.readLong();
        int batches = in.readByte();
        for (int j = 0; j < batches; j++) {
          e.batches.add(new Batch(in.readInt(), in.readInt(), in.readLong(), in.readInt(), in.readLong()));
        }
        state.producers.put(id, e);
      }
      long expected = crc.getValue();
      return new DataInputStream(raw).readLong() == expected ? new Loaded(state, offset) : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
