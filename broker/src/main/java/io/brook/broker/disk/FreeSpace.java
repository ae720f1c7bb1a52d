package io.brook.broker.disk;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/** Bytes this process may still write on a filesystem (tests inject their own). */
@FunctionalInterface
public interface FreeSpace {
  long usableBytes() throws IOException;

  /**
   * The filesystem holding {@code dir}. The FileStore is looked up once (that reads the mount
   * table); each call is then one statvfs.
   */
  static FreeSpace of(Path dir) throws IOException {
    FileStore store = Files.getFileStore(dir);
    return store::getUsableSpace;
  }
}
