package io.brook.broker.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.wire.Wires;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Segment files a process killed while Chronicle created them: the file exists at its full (sparse)
 * length but its header was never completed. Chronicle cannot acquire such a file: at every open and
 * at the next append it waits about 45 s for "the other process" to finish it, then fails the append
 * and renames the file. The file cannot hold a record (documents follow the header), so the broker
 * removes it before opening the queue, under the data directory's lock (no other process can be
 * creating it). Found by the crash harness (CrashIT).
 */
final class UnfinishedSegments {
  private static final Logger log = LoggerFactory.getLogger(UnfinishedSegments.class);
  /** A finished file's first document (its header) ends well inside this; the rest must be empty too. */
  private static final int CHECKED_BYTES = 128 * 1024;

  private UnfinishedSegments() {}

  /** The segment files of {@code queueDir} whose Chronicle header was never completed. */
  static List<Path> find(Path queueDir) {
    List<Path> found = new ArrayList<>();
    if (!Files.isDirectory(queueDir)) {
      return found;
    }
    try (DirectoryStream<Path> files = Files.newDirectoryStream(queueDir, "*.cq4")) {
      for (Path f : files) {
        if (unfinished(f)) {
          found.add(f);
        }
      }
    } catch (IOException e) {
      throw new StorageException("cannot list " + queueDir + ": " + e.getMessage(), e);
    }
    return found;
  }

  /** Removes them; only for the process holding the data directory's lock, before the queue opens. */
  static void remove(Path queueDir) {
    for (Path f : find(queueDir)) {
      try {
        Files.delete(f);
      } catch (IOException e) {
        throw new StorageException("cannot remove the unfinished segment file " + f + ": " + e.getMessage(), e);
      }
      log.warn("Removed segment file {}: a crash while it was being created left it without a header "
          + "(it held no records)", f);
    }
  }

  /**
   * True when the file's first header is missing (zero, and nothing else written near it) or still
   * marked incomplete. A finished file starts with a complete metadata header.
   */
  static boolean unfinished(Path file) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer head = read(ch, 4);
      if (head.remaining() == 4 && head.getInt(0) != 0) {
        return Wires.isNotComplete(head.getInt(0));
      }
      return allZero(read(ch, CHECKED_BYTES)); // bytes after a missing header would be something else: keep it
    } catch (IOException e) {
      throw new StorageException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /** Up to {@code n} bytes from the start of the file (fewer when it is shorter), little-endian. */
  private static ByteBuffer read(FileChannel ch, int n) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
    while (b.hasRemaining() && ch.read(b, b.position()) > 0) {
      // until n bytes or the end of the file
    }
    return b.flip();
  }

  private static boolean allZero(ByteBuffer b) {
    for (int i = 0; i < b.limit(); i++) {
      if (b.get(i) != 0) {
        return false;
      }
    }
    return true;
  }
}
