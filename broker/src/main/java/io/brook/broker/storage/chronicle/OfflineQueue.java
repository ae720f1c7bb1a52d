package io.brook.broker.storage.chronicle;

import io.brook.broker.storage.StorageException;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.wire.DocumentContext;
import net.openhft.chronicle.wire.Wires;

/**
 * A partition's queue read offline, for the dump tool (storage.dump): its documents in order and
 * what follows the last one. Never writes: the queue is opened read-only, Chronicle's locks are only
 * read, and the tail is inspected through a read-only file channel. A broker may run meanwhile
 * (Chronicle readers are safe beside a writer).
 */
public final class OfflineQueue implements AutoCloseable {
  /** The directory listing's keys, added right after the metadata file: a read-only open needs them. */
  private static final List<String> LISTING_KEYS =
      List.of("listing.highestCycle", "listing.lowestCycle", "listing.modCount");
  /** Bytes looked at after the last document for leftovers of an unfinished one. */
  private static final int TAIL_PROBE = 64;

  private final Path dir;
  private final ChronicleQueue queue;
  private byte[] buf = new byte[64 * 1024];
  private File lastFile;
  private long lastDocumentEnd = -1;

  /** What {@link #forEachDocument} finds. */
  public interface DocumentVisitor {
    /** A new segment starts: its file name and Chronicle cycle number. */
    void segment(String fileName, int cycle);

    /** A document (a stored batch) in {@code bytes[0, length)}; the array is reused for the next one. */
    void document(byte[] bytes, int length);
  }

  private OfflineQueue(Path dir, ChronicleQueue queue) {
    this.dir = dir;
    this.queue = queue;
  }

  /**
   * True when a kill cut the queue's creation short: its metadata.cq4t unfinished, or finished without
   * the directory listing's keys Chronicle adds next. Chronicle would wait for it and fail, or refuse
   * to open it read-only.
   */
  public static boolean creationCutShort(Path dir) {
    return UnfinishedFiles.metadata(dir) || !ChronicleInternals.metadataKeys(dir).containsAll(LISTING_KEYS);
  }

  /** Opens the queue in {@code dir} read-only; Chronicle's failures on unreadable files are runtime exceptions. */
  public static OfflineQueue open(Path dir) {
    return new OfflineQueue(dir, ChronicleInternals.openReadOnly(dir).queue());
  }

  /** The segment roll the queue was created with ("1h", ...). */
  public String rollLabel() {
    return ChronicleRolls.label(queue.rollCycle());
  }

  /** Visits every document of the queue in order, announcing each segment before its first document. */
  public void forEachDocument(DocumentVisitor visitor) {
    RollCycle roll = queue.rollCycle();
    int cycle = Integer.MIN_VALUE;
    try (ExcerptTailer tailer = queue.createTailer()) {
      while (true) {
        try (DocumentContext dc = tailer.readingDocument()) {
          if (!dc.isPresent()) {
            break;
          }
          int c = roll.toCycle(dc.index());
          if (c != cycle) {
            cycle = c;
            lastFile = tailer.currentFile();
            visitor.segment(lastFile == null ? "cycle " + c : lastFile.getName(), c);
          }
          Bytes<?> doc = dc.wire().bytes();
          int length = (int) doc.readRemaining();
          if (buf.length < length) {
            buf = new byte[Math.max(length, buf.length * 2)];
          }
          lastDocumentEnd = doc.readLimit(); // the file position where the next document's header goes
          doc.read(buf, 0, length);
          visitor.document(buf, length);
        }
      }
    }
  }

  /**
   * Chronicle's write or append lock is held: its writer died mid-append, or is appending now. A lock
   * whose key the metadata does not have yet was never taken (a kill between the queue's creation and
   * its first lock leaves that).
   */
  public boolean lockHeld() {
    Set<String> keys = ChronicleInternals.metadataKeys(dir);
    for (String key : List.of(ChronicleInternals.WRITE_LOCK, ChronicleInternals.APPEND_LOCK)) {
      if (keys.contains(key) && ChronicleInternals.lockHeld(dir, key)) {
        return true;
      }
    }
    return false;
  }

  /**
   * After {@link #forEachDocument}: bytes follow the last document (Chronicle writes a document's
   * header when the document completes, so a killed append leaves bytes without one), or a segment
   * file's own header was never written (a kill while it was created).
   */
  public boolean unfinishedAfterLastDocument() {
    return (lastFile != null && bytesAfter(lastFile, lastDocumentEnd)) || !UnfinishedFiles.segments(dir).isEmpty();
  }

  /** Walks Chronicle's document headers after {@code end}: metadata documents are skipped, anything else counts. */
  private static boolean bytesAfter(File file, long end) {
    ByteBuffer b = ByteBuffer.allocate(TAIL_PROBE).order(ByteOrder.LITTLE_ENDIAN);
    long pos = (end + 3) & ~3L; // headers are 4-byte aligned
    try (FileChannel ch = FileChannel.open(file.toPath(), StandardOpenOption.READ)) {
      for (int step = 0; step < 1024; step++) {
        b.clear();
        int n = ch.read(b, pos);
        if (n < 4) {
          return false; // the end of the file
        }
        int header = b.getInt(0);
        if (header == 0) {
          for (int i = 4; i < n; i++) {
            if (b.get(i) != 0) {
              return true; // content of a document whose header was never written
            }
          }
          return false;
        }
        if (header == Wires.END_OF_DATA) {
          return false; // the segment was closed when the queue rolled
        }
        if (Wires.isNotComplete(header) || (header & Wires.META_DATA) == 0) {
          return true; // a document still being written, or one appended after our read
        }
        pos = (pos + 4 + Wires.lengthOf(header) + 3) & ~3L;
      }
      return false;
    } catch (IOException e) {
      throw new StorageException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    queue.close();
  }
}
