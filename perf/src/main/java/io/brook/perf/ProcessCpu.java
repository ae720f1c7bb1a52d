package io.brook.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time another local process has used, from /proc/PID/stat (the drivers measure the broker's). */
public final class ProcessCpu {
  /** USER_HZ: the unit of /proc/PID/stat's CPU times (100 on every Linux this runs on). */
  private static final double TICKS_PER_SECOND = 100.0;

  private ProcessCpu() {}

  /** utime + stime of the process in seconds; -1 without a pid, without /proc, or when it is gone. */
  public static double seconds(long pid) {
    if (pid <= 0) {
      return -1;
    }
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      // Fields after the command name (which may hold spaces) start after the last ')'.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
      return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
