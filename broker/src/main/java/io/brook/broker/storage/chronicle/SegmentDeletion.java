package io.brook.broker.storage.chronicle;

import io.brook.broker.storage.StorageException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.core.io.BackgroundResourceReleaser;
import net.openhft.chronicle.queue.ChronicleQueue;

/**
 * Retention's whole-segment deletes, in two steps. {@link #detachOldest} runs while no read runs (the
 * engine holds its close gate exclusively): it drops the oldest segments from the index, moves the
 * log start past them, closes every idle tailer (a tailer keeps the file it last read mapped, and a
 * mapped file frees no space), renames the files out of the queue's sight and refreshes Chronicle's
 * directory listing. {@link #unlink} then runs outside every lock, so appends and reads go on while
 * the file system frees the blocks. Renaming first matters: a read right after the gate opens creates
 * a tailer, which maps the oldest cycle Chronicle lists; a file unlinked under it is created again,
 * empty, and the tailer waits 10 s for its header.
 */
final class SegmentDeletion {
  /** A segment file is renamed to this before it is unlinked: no longer a cycle file to Chronicle. */
  static final String DELETED_SUFFIX = ".deleted";

  private final ChronicleQueue queue;
  private final SegmentIndex index;
  private final LogBounds bounds;
  private final ReaderPool readers;

  /** Renamed files to unlink, and the files that could not be renamed or unlinked. */
  record Detached(List<Path> renamed, List<String> failed) {}

  SegmentDeletion(ChronicleQueue queue, SegmentIndex index, LogBounds bounds, ReaderPool readers) {
    this.queue = queue;
    this.index = index;
    this.bounds = bounds;
    this.readers = readers;
  }

  /** Step one, while no read runs; null when there was nothing to delete (a single segment). */
  Detached detachOldest(int count) {
    List<Segment> doomed = index.removeOldest(count);
    if (doomed.isEmpty()) {
      return null;
    }
    bounds.startAt(index.firstOffset());
    readers.closeIdle();
    List<Path> renamed = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    for (Segment s : doomed) {
      Path file = s.file().toPath();
      Path gone = file.resolveSibling(file.getFileName() + DELETED_SUFFIX);
      try {
        Files.move(file, gone, StandardCopyOption.ATOMIC_MOVE);
        renamed.add(gone);
      } catch (IOException e) {
        failed.add(file + " (" + e.getMessage() + ")");
      }
    }
    queue.refreshDirectoryListing(); // else Chronicle still lists the deleted cycles
    return new Detached(renamed, failed);
  }

  /** Step two, outside every lock: unlinks the renamed files. */
  static void unlink(Detached detached) {
    // Chronicle unmaps closed tailers' files on a background thread: wait for it, so the unlink frees
    // the space now rather than whenever that thread gets to it.
    BackgroundResourceReleaser.releasePendingResources();
    List<String> failed = new ArrayList<>(detached.failed());
    for (Path gone : detached.renamed()) {
      try {
        Files.deleteIfExists(gone);
      } catch (IOException e) {
        failed.add(gone + " (" + e.getMessage() + "; removed at the next start)");
      }
    }
    if (!failed.isEmpty()) {
      // The start offset has moved on regardless; a restart would find files not renamed and serve them again.
      throw new StorageException("cannot delete segment files " + failed);
    }
  }

  /** Segment files renamed but not unlinked before a crash: removed at the next open. */
  static void removeLeftovers(Path dir) {
    try (DirectoryStream<Path> left = Files.newDirectoryStream(dir, "*" + DELETED_SUFFIX)) {
      for (Path f : left) {
        Files.deleteIfExists(f);
      }
    } catch (NoSuchFileException e) {
      // a new partition: nothing left over
    } catch (IOException e) {
      throw new StorageException("cannot remove deleted segments in " + dir + ": " + e.getMessage(), e);
    }
  }
}
