package io.brook.broker.it.crash;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The run's progress lines: to stdout (which Failsafe keeps in its report file, written in large
 * buffers) and, flushed line by line, to {@code crash.progress} (default target/crash-progress.txt),
 * which scripts/crash-test.sh follows while a long run goes on.
 */
final class Progress {
  private static final Path FILE = Path.of(System.getProperty("crash.progress", "target/crash-progress.txt"));

  private Progress() {}

  static synchronized void start() throws IOException {
    Files.createDirectories(FILE.toAbsolutePath().getParent());
    Files.deleteIfExists(FILE);
  }

  static synchronized void line(String s) {
    System.out.println(s);
    try {
      Files.writeString(FILE, s + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      // progress only: stdout has the line
    }
  }
}
