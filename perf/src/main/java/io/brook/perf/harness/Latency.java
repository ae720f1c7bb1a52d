package io.brook.perf.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/** Latencies in microseconds, recorded from any thread (HdrHistogram's Recorder), reported in ms. */
final class Latency {
  static final double[] PERCENTILES = {50, 90, 99, 99.9, 99.99, 100};
  private final Recorder recorder = new Recorder(3);
  private Histogram total;

  void recordNanos(long nanos) {
    recorder.recordValue(Math.max(0, nanos / 1000));
  }

  /** Everything recorded so far (call once, after the last record). */
  Histogram histogram() {
    if (total == null) {
      total = recorder.getIntervalHistogram();
    }
    return total;
  }

  /** p50, p99, p99.9 and max in ms into the values. */
  void putInto(Map<String, Double> values) {
    Histogram h = histogram();
    if (h.getTotalCount() == 0) {
      return;
    }
    values.put("p50_ms", ms(h.getValueAtPercentile(50)));
    values.put("p99_ms", ms(h.getValueAtPercentile(99)));
    values.put("p999_ms", ms(h.getValueAtPercentile(99.9)));
    values.put("max_ms", ms(h.getMaxValue()));
  }

  /** [percentile, ms] pairs for the plot's latency curve. */
  List<double[]> curve() {
    Histogram h = histogram();
    List<double[]> out = new ArrayList<>();
    if (h.getTotalCount() > 0) {
      for (double p : PERCENTILES) {
        out.add(new double[] {p, ms(p == 100 ? h.getMaxValue() : h.getValueAtPercentile(p))});
      }
    }
    return out;
  }

  private static double ms(long micros) {
    return micros / 1000.0;
  }
}
