package io.brook.broker.storage.chronicle;

import io.brook.broker.storage.StorageException;
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
 * Chronicle files a process killed while Chronicle created them: the file exists (a segment at its
 * full sparse length, or the queue's metadata.cq4t) but its header was never completed. Chronicle
 * cannot use such a file: it waits for "the other process" to finish it, then fails - about 45 s per
 * open and per append for a segment (then the append fails); about 10 s and an exception for the
 * metadata file, so the broker could not start. Neither can hold a record: documents follow a
 * segment's header, and appends follow the queue's creation. So the broker removes them before it
 * opens the queue, under the data directory's lock (no other process can be creating them).
 * Both found by the crash harness (CrashIT).
 */
final class UnfinishedFiles {
  private static final Logger log = LoggerFactory.getLogger(UnfinishedFiles.class);
  private static final String METADATA = ChronicleInternals.METADATA;
  /** A finished file's first document (its header) ends well inside this; the rest must be empty too. */
  private static final int CHECKED_BYTES = 128 * 1024;

  private UnfinishedFiles() {}

  /** The segment files of {@code queueDir} whose Chronicle header was never completed. */
  static List<Path> segments(Path queueDir) {
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

  /** True when the queue's metadata.cq4t exists and its header was never completed. */
  static boolean metadata(Path queueDir) {
    Path m = queueDir.resolve(METADATA);
    return Files.isRegularFile(m) && unfinished(m);
  }

  /**
   * Removes them; only for the process holding the data directory's lock, before the queue opens.
   *
   * @throws StorageException when the metadata file is unfinished but finished segments exist: no
   *     crash leaves that, and what the segments hold is not for the broker to guess
   */
  static void remove(Path queueDir) {
    for (Path f : segments(queueDir)) {
      delete(f);
      log.warn("Removed segment file {}: a crash while it was being created left it without a header "
          + "(it held no records)", f);
    }
    if (metadata(queueDir)) {
      if (hasSegments(queueDir)) {
        throw new StorageException(queueDir.resolve(METADATA) + " was never finished, yet the directory holds "
            + "segment files: restore the directory from a copy, or move it away");
      }
      delete(queueDir.resolve(METADATA));
      log.warn("Removed {}: a crash while the queue was being created left it unfinished (the queue held no "
          + "records)", queueDir.resolve(METADATA));
    }
  }

  private static boolean hasSegments(Path queueDir) {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(queueDir, "*.cq4")) {
      return files.iterator().hasNext();
    } catch (IOException e) {
      throw new StorageException("cannot list " + queueDir + ": " + e.getMessage(), e);
    }
  }

  private static void delete(Path f) {
    try {
      Files.delete(f);
    } catch (IOException e) {
      throw new StorageException("cannot remove the unfinished file " + f + ": " + e.getMessage(), e);
    }
  }

  /**
   * True when the file's first header is missing (zero, and nothing else written near it) or still
   * marked incomplete. A finished Chronicle file starts with a complete metadata header.
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
