package io.brook.perf.harness;

import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The results file (perf/report.py renders it): per workload its definition, every run, the median
 * per system and metric over the ok runs, the subject/other ratio of the medians, whether each goal
 * held ("goals"; "goal" and "goal_met" are the first, as files before several goals had them), and the
 * latency curve of the run nearest the median.
 */
final class Results {
  final Map<String, Object> header = new LinkedHashMap<>();
  private final List<Workload> workloads;
  private final Map<String, List<Run>> runs = new LinkedHashMap<>();

  Results(List<Workload> workloads) {
    this.workloads = workloads;
    for (Workload w : workloads) {
      runs.put(w.name(), new ArrayList<>());
    }
  }

  void add(Workload w, Run r) {
    runs.get(w.name()).add(r);
  }

  List<Run> failed() {
    List<Run> out = new ArrayList<>();
    runs.values().forEach(l -> l.stream().filter(r -> !r.ok).forEach(out::add));
    return out;
  }

  void write(Path file) throws IOException {
    Map<String, Object> root = new LinkedHashMap<>(header);
    List<Object> ws = new ArrayList<>();
    for (Workload w : workloads) {
      ws.add(workload(w, runs.get(w.name())));
    }
    root.put("workloads", ws);
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, new GsonBuilder().setPrettyPrinting().serializeSpecialFloatingPointValues().create()
        .toJson(root) + "\n", StandardCharsets.UTF_8);
  }

  private static Map<String, Object> workload(Workload w, List<Run> all) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", w.name());
    m.put("title", w.title());
    m.put("kind", w.kind().name().toLowerCase());
    m.put("params", params(w));
    m.put("systems", w.systems());
    m.put("peer", w.peer());
    List<Object> metrics = new ArrayList<>();
    for (Workload.Metric x : w.metrics()) {
      metrics.add(Map.of("key", x.key(), "label", x.label(), "better", x.better()));
    }
    m.put("metrics", metrics);
    List<Object> runList = new ArrayList<>();
    for (Run r : all) {
      Map<String, Object> rm = new LinkedHashMap<>();
      rm.put("system", r.system);
      rm.put("repeat", r.repeat);
      rm.put("ok", r.ok);
      rm.put("values", r.values);
      rm.put("steal_percent", round(r.stealPercent));
      rm.put("seconds", round(r.seconds));
      rm.put("note", r.note);
      runList.add(rm);
    }
    m.put("runs", runList);
    Map<String, Map<String, Double>> medians = new LinkedHashMap<>();
    Map<String, List<double[]>> curves = new LinkedHashMap<>();
    for (String s : w.systems()) {
      List<Run> ok = all.stream().filter(r -> r.ok && r.system.equals(s)).toList();
      if (ok.isEmpty()) {
        continue;
      }
      Map<String, Double> med = new LinkedHashMap<>();
      for (Workload.Metric x : w.metrics()) {
        List<Double> v = ok.stream().map(r -> r.values.get(x.key())).filter(d -> d != null).sorted().toList();
        if (!v.isEmpty()) {
          med.put(x.key(), median(v));
        }
      }
      medians.put(s, med);
      Run nearest = nearestMedian(ok, w.metrics().get(0).key(), med.get(w.metrics().get(0).key()));
      if (nearest != null && !nearest.latencyCurve.isEmpty()) {
        curves.put(s, nearest.latencyCurve);
      }
    }
    m.put("median", medians);
    Map<String, Map<String, Double>> ratios = new LinkedHashMap<>();
    String subject = w.systems().get(0);
    for (String other : w.systems().subList(1, w.systems().size())) {
      if (!medians.containsKey(subject) || !medians.containsKey(other)) {
        continue;
      }
      Map<String, Double> r = new LinkedHashMap<>();
      medians.get(subject).forEach((k, v) -> {
        Double o = medians.get(other).get(k);
        if (o != null && o != 0) {
          r.put(k, round(v / o));
        }
      });
      ratios.put(other, r);
    }
    m.put("ratios", ratios);
    List<Object> goals = new ArrayList<>();
    for (Workload.Goal g : w.goals()) {
      Map<String, Object> gm = new LinkedHashMap<>();
      gm.put("metric", g.metric());
      gm.put("ratio", g.ratio());
      gm.put("text", g.text());
      gm.put("met", met(w, g, ratios.get(w.peer())));
      goals.add(gm);
    }
    m.put("goal", goals.isEmpty() ? null : goals.get(0));
    m.put("goal_met", goals.isEmpty() ? null : ((Map<?, ?>) goals.get(0)).get("met"));
    m.put("goals", goals);
    if (!curves.isEmpty()) {
      m.put("latency_percentiles", curves);
    }
    return m;
  }

  /** Whether the subject/peer ratio meets the goal; null when there is no ratio to judge. */
  static Boolean met(Workload w, Workload.Goal g, Map<String, Double> peerRatios) {
    if (peerRatios == null || !peerRatios.containsKey(g.metric())) {
      return null;
    }
    double r = peerRatios.get(g.metric());
    boolean higher = w.metrics().stream().filter(x -> x.key().equals(g.metric())).findFirst()
        .map(x -> x.better().equals("higher")).orElse(true);
    return higher ? r >= g.ratio() : r <= g.ratio();
  }

  private static Map<String, Object> params(Workload w) {
    Map<String, Object> p = new LinkedHashMap<>();
    switch (w.kind()) {
      case START_EMPTY -> {
        return p;
      }
      case START_FULL -> {
        p.put("bytes", w.bytes());
        p.put("record_size", w.recordSize());
        p.put("partitions", w.partitions());
        return p;
      }
      case PARTITIONS -> {
        p.put("partitions", w.partitions());
        p.put("topics", (w.partitions() + 99) / 100);
        return p;
      }
      default -> { }
    }
    p.put("record_size", w.recordSize());
    if (w.records() > 0) {
      p.put("records", w.records());
    }
    p.put("partitions", w.partitions());
    if (w.producers() > 0) {
      p.put("producers", w.producers());
    }
    if (w.consumers() > 0) {
      p.put("consumers", w.consumers());
    }
    if (w.rate() > 0) {
      p.put("rate", w.rate());
    }
    if (w.seconds() > 0) {
      p.put("seconds", w.seconds());
    }
    p.put("batch_size", w.settings().batchSize());
    p.put("linger_ms", w.settings().lingerMs());
    if (w.kind() == Workload.Kind.CONSUME || w.kind() == Workload.Kind.END_TO_END || w.kind() == Workload.Kind.ACK) {
      p.put("max_poll_records", w.settings().maxPollRecords());
      p.put("fetch_max_bytes", w.settings().fetchMaxBytes());
    }
    if (w.systems().contains("brook-kafka")) {
      p.put("client", w.kind() == Workload.Kind.PRODUCER_PERF ? "ProducerPerformance (kafka-tools 4.3.1)"
          : "kafka-clients 4.3.1");
      p.put("durability", "acks=all");
    } else {
      p.put("durability", w.settings().synced() ? "SYNCED vs acks=all + flush.messages=1" : "WRITTEN vs acks=all");
    }
    return p;
  }

  static double median(List<Double> sorted) {
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static Run nearestMedian(List<Run> ok, String key, Double median) {
    Run best = null;
    double bestDistance = Double.MAX_VALUE;
    for (Run r : ok) {
      Double v = r.values.get(key);
      if (v != null && median != null && Math.abs(v - median) < bestDistance) {
        best = r;
        bestDistance = Math.abs(v - median);
      }
    }
    return best;
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
