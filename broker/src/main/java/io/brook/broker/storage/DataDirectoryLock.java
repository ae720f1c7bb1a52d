package io.brook.broker.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on the data directory, held for the broker's lifetime: a second broker on the
 * same directory fails at start with a clear message. The OS releases it when the process dies, so
 * a kill -9 never leaves it stale (unlike Chronicle's own locks, which the Chronicle engine clears at open).
 */
public final class DataDirectoryLock implements AutoCloseable {
  private final FileChannel channel;
  private final FileLock lock;

  private DataDirectoryLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  public static DataDirectoryLock acquire(Path dataDir) {
    Path file = dataDir.resolve(".lock");
    try {
      Files.createDirectories(dataDir);
      FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
          StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        String holder = Files.readString(file).trim();
        channel.close();
        throw new StorageException("data directory " + dataDir.toAbsolutePath() + " is in use by another broker"
            + (holder.isEmpty() ? "" : " (" + holder + ")") + "; stop it or choose another --data-dir");
      }
      channel.truncate(0);
      channel.write(ByteBuffer.wrap(("pid " + ProcessHandle.current().pid()).getBytes(StandardCharsets.UTF_8)), 0);
      return new DataDirectoryLock(channel, lock);
    } catch (IOException e) {
      throw new StorageException("cannot lock data directory " + dataDir.toAbsolutePath() + ": " + e.getMessage(), e);
    }
  }

  /**
   * True when a process holds {@code dataDir}'s lock: a momentary shared lock is tried and released at
   * once (for the offline dump, which runs beside or instead of a broker). Never call it from a JVM
   * holding the lock: closing any channel of the file drops that JVM's lock on Linux.
   */
  public static boolean isHeld(Path dataDir) {
    Path file = dataDir.resolve(".lock");
    if (!Files.isRegularFile(file)) {
      return false;
    }
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      FileLock probe = channel.tryLock(0, Long.MAX_VALUE, true);
      if (probe == null) {
        return true;
      }
      probe.release();
      return false;
    } catch (OverlappingFileLockException e) {
      return true;
    } catch (IOException e) {
      return false; // unreadable: nothing can be said; the dump reads the files anyway
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      // The OS drops the lock with the process anyway.
    }
  }
}
