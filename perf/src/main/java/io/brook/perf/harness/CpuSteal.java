package io.brook.perf.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The share of CPU time the hypervisor gave to other guests (the "steal" column of /proc/stat's cpu
 * line) between two readings. On a shared VM it says how much a figure may have been disturbed.
 */
final class CpuSteal {
  private final long total;
  private final long steal;

  private CpuSteal(long total, long steal) {
    this.total = total;
    this.steal = steal;
  }

  static CpuSteal now() {
    try {
      String line = Files.readAllLines(Path.of("/proc/stat")).get(0); // cpu user nice system idle iowait irq softirq steal
      String[] f = line.trim().split("\\s+");
      long sum = 0;
      for (int i = 1; i < Math.min(f.length, 9); i++) {
        sum += Long.parseLong(f[i]);
      }
      return new CpuSteal(sum, f.length > 8 ? Long.parseLong(f[8]) : 0);
    } catch (IOException | RuntimeException e) {
      return new CpuSteal(0, 0);
    }
  }

  /** Percent of all CPU time since {@code before} that was stolen. */
  double percentSince(CpuSteal before) {
    long dt = total - before.total;
    return dt <= 0 ? 0 : 100.0 * (steal - before.steal) / dt;
  }
}
