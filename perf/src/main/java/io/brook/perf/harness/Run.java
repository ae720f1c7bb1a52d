package io.brook.perf.harness;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One measured run of one workload on one system. {@code ok} false: its check failed, see note. */
final class Run {
  final String system;
  final int repeat;
  boolean ok = true;
  String note = "";
  final Map<String, Double> values = new LinkedHashMap<>();
  double stealPercent;
  double seconds;
  List<double[]> latencyCurve = List.of();

  Run(String system, int repeat) {
    this.system = system;
    this.repeat = repeat;
  }

  void fail(String why) {
    ok = false;
    note = note.isEmpty() ? why : note + "; " + why;
  }
}
