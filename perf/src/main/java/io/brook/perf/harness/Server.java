package io.brook.perf.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A broker process the harness started: where it listens, and what it costs the machine. */
abstract class Server implements AutoCloseable {
  /** Clock ticks per second of /proc/PID/stat (USER_HZ, 100 on Linux everywhere we run). */
  private static final double TICKS_PER_SECOND = 100.0;

  final String name;
  final Path dir;
  long readyMillis;

  Server(String name, Path dir) {
    this.name = name;
    this.dir = dir;
  }

  /** host:port for the clients. */
  abstract String address();

  abstract long pid();

  /** Starts the process on {@link #dir} (formatting it if new) and returns once it serves clients. */
  abstract void start() throws Exception;

  /** SIGTERM, then the process is waited for; never leaves it running. */
  abstract void stop();

  @Override
  public void close() {
    stop();
  }

  /** Resident set size in MiB, from /proc; -1 when the process is gone. */
  double rssMib() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid() + "/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /** User + system CPU seconds the process has used so far; -1 when it is gone. */
  double cpuSeconds() {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid() + "/stat"));
      // Fields after the command name (which may hold spaces) start at the last ')'.
      List<String> f = List.of(stat.substring(stat.lastIndexOf(')') + 2).trim().split(" "));
      return (Long.parseLong(f.get(11)) + Long.parseLong(f.get(12))) / TICKS_PER_SECOND;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /** Bytes under the data directory (the 10 GB start workload checks what it wrote). */
  long dataBytes() throws IOException {
    try (var files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }
}
