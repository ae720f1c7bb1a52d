package io.brook.perf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Temporary directories for benchmark trials: under {@code -Dbrook.bench.dir} or java.io.tmpdir.
 *
 * <p>{@code -Dbrook.bench.dirPer=iteration} makes the append benchmarks use a fresh directory per
 * iteration (deleted after it) instead of per trial: deleting the files drops their dirty pages, so
 * a long trial does not pile up gigabytes of dirty page cache and end up measuring the disk's
 * write-back bandwidth, and a tmpfs ({@code /dev/shm}) holds only one iteration's data at a time.
 */
final class BenchDirs {
  private BenchDirs() {}

  static boolean perIteration() {
    return "iteration".equals(System.getProperty("brook.bench.dirPer", "trial"));
  }

  static Path create(String prefix) {
    try {
      String base = System.getProperty("brook.bench.dir", System.getProperty("java.io.tmpdir"));
      Path parent = Paths.get(base);
      Files.createDirectories(parent);
      return Files.createTempDirectory(parent, prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void delete(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
