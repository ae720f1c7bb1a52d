package io.brook.broker.it.crash;

import java.util.ArrayList;
import java.util.List;

/** Every broken guarantee the harness saw, with the cycle it was seen in (the first 200 kept in full). */
final class Violations {
  private final List<String> lines = new ArrayList<>();
  private int count;
  private volatile int cycle;

  void cycle(int c) {
    cycle = c;
  }

  synchronized void add(String what) {
    count++;
    if (lines.size() < 200) {
      lines.add("cycle " + cycle + ": " + what);
    }
    Progress.line("CrashIT: VIOLATION cycle " + cycle + ": " + what);
  }

  synchronized int count() {
    return count;
  }

  synchronized List<String> lines() {
    return List.copyOf(lines);
  }
}
