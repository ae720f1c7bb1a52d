package io.brook.broker.it.crash;

import java.util.concurrent.ThreadLocalRandom;

/**
 * What a crash run does: how many kill/restart cycles, the seed of every random choice (kill
 * moments, batch sizes, partitions, durability, payloads), and the longest a cycle's load runs
 * before its kill. Each comes from a system property, else an environment variable, else a default:
 * {@code crash.cycles} / {@code CRASH_CYCLES}, {@code crash.seed} / {@code CRASH_SEED} (default: a
 * new random seed), {@code crash.cycle.ms} / {@code CRASH_CYCLE_MS}.
 */
record CrashConfig(int cycles, long seed, long cycleMs) {
  static final int DEFAULT_CYCLES = 12;
  static final long DEFAULT_CYCLE_MS = 1500;

  static CrashConfig fromEnvironment() {
    String seed = setting("crash.seed", "CRASH_SEED");
    return new CrashConfig(
        Integer.parseInt(orDefault(setting("crash.cycles", "CRASH_CYCLES"), Integer.toString(DEFAULT_CYCLES))),
        seed == null ? ThreadLocalRandom.current().nextLong() : Long.parseLong(seed),
        Long.parseLong(orDefault(setting("crash.cycle.ms", "CRASH_CYCLE_MS"), Long.toString(DEFAULT_CYCLE_MS))));
  }

  CrashConfig {
    if (cycles < 1 || cycleMs < 10) {
      throw new IllegalArgumentException("crash.cycles must be >= 1 and crash.cycle.ms >= 10");
    }
  }

  private static String setting(String property, String env) {
    String v = System.getProperty(property);
    if (v == null || v.isBlank()) {
      v = System.getenv(env);
    }
    return v == null || v.isBlank() ? null : v.trim();
  }

  private static String orDefault(String v, String fallback) {
    return v == null ? fallback : v;
  }

  /** How to run exactly this configuration again. */
  String replay() {
    return "scripts/crash-test.sh " + cycles + " " + seed + " " + cycleMs
        + "   (or: -Dcrash.cycles=" + cycles + " -Dcrash.seed=" + seed + " -Dcrash.cycle.ms=" + cycleMs + ")";
  }
}
