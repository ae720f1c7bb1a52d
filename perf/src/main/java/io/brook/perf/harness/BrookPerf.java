package io.brook.perf.harness;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * brook-perf: the workloads of {@link Workloads} on Brook (Java client) and Apache Kafka 4.3.1
 * (kafka-clients) on this machine, alternating between the systems and repeated, the median of each
 * metric and the Brook/Kafka ratio written to a results file that {@code perf/report.py} turns into
 * tables and a plot. {@code bin/brook-perf} builds, runs this, and renders the report.
 */
@Command(name = "brook-perf", mixinStandardHelpOptions = true,
    description = "Runs Brook and Apache Kafka through the same workloads and writes the results as JSON.")
public final class BrookPerf implements Callable<Integer> {
  @Option(names = "--smoke", description = "Workloads at smoke size, one repeat, no warm-up: seconds, proves the "
      + "harness drives both systems; its figures mean nothing.")
  boolean smoke;

  @Option(names = "--repeats", description = "Measured runs per workload and system (default 3; smoke 1).")
  Integer repeats;

  @Option(names = "--workloads", split = ",", description = "Only these workloads (names or name prefixes).")
  List<String> only = new ArrayList<>();

  @Option(names = "--out", required = true, description = "The results file to write (JSON).")
  Path out;

  @Option(names = "--work", required = true, description = "Where the brokers keep their data (deleted after).")
  Path work;

  @Option(names = "--repo", defaultValue = ".", description = "The Brook checkout (bin/brook, perf/kafka.sh).")
  Path repo;

  @Option(names = "--heap", defaultValue = "-Xms1g -Xmx1g",
      description = "JVM heap options of every broker, Brook's and Kafka's alike (Kafka's own default).")
  String heap;

  @Option(names = "--jfr", description = "Record every broker with Java Flight Recorder (profile settings) into "
      + "this directory, one .jfr per broker process, written when it stops.")
  Path jfr;

  @Option(names = "--no-warmup", description = "Skip the warm-up pass (a fifth of each workload per system).")
  boolean noWarmup;

  @Option(names = "--command", description = "The command line to record in the results.")
  String command = "";

  public static void main(String[] args) {
    // kafka-clients logs every client's configuration at INFO and retriable errors (a new topic's leader not
    // known yet) at WARN; only failures belong on this output.
    System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "error");
    System.exit(new CommandLine(new BrookPerf()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    List<Workload> workloads = Workloads.all(smoke).stream().filter(this::selected).toList();
    if (workloads.isEmpty()) {
      System.err.println("brook-perf: no workload matches " + only + "; the workloads: "
          + Workloads.all(smoke).stream().map(Workload::name).toList());
      return 2;
    }
    int r = repeats != null ? repeats : smoke ? 1 : 3;
    if (r < 1) {
      System.err.println("brook-perf: --repeats must be at least 1, not " + r);
      return 2;
    }
    Results results = new Results(workloads);
    results.header.put("tool", "brook-perf");
    results.header.put("schema", 1);
    results.header.put("mode", smoke ? "smoke" : "full");
    results.header.put("started", now());
    results.header.put("command", command);
    results.header.put("repeats", r);
    results.header.put("machine", Machine.describe(repo));
    Files.createDirectories(work);
    CpuSteal before = CpuSteal.now();
    if (jfr != null) {
      Files.createDirectories(jfr);
    }
    try (Systems systems = new Systems(repo.toAbsolutePath(), work.toAbsolutePath(), heap,
        jfr == null ? null : jfr.toAbsolutePath())) {
      Runner runner = new Runner(systems);
      if (!smoke && !noWarmup) {
        for (Workload w : workloads) {
          if (w.kind().warmable) {
            for (String s : w.systems()) {
              Run run = runner.run(w.warmup(0.2), s, 0);
              System.out.println("brook-perf: warm-up " + w.name() + " " + line(w, run));
            }
          }
        }
      }
      for (int i = 1; i <= r; i++) {
        for (Workload w : workloads) {
          // Alternate which system goes first, so that neither always runs on a warmer (or dirtier) machine.
          List<String> order = new ArrayList<>(w.systems());
          if (i % 2 == 0) {
            java.util.Collections.reverse(order);
          }
          for (String s : order) {
            Run run = runner.run(w, s, i);
            results.add(w, run);
            System.out.printf("brook-perf: [%d/%d] %s %s%n", i, r, w.name(), line(w, run));
          }
        }
      }
    }
    results.header.put("finished", now());
    results.header.put("cpu_steal_percent", Math.round(CpuSteal.now().percentSince(before) * 100) / 100.0);
    results.write(out);
    List<Run> failed = results.failed();
    System.out.printf("brook-perf: %d workloads x %d repeats written to %s; %d runs failed%n", workloads.size(), r,
        out, failed.size());
    return failed.isEmpty() ? 0 : 1;
  }

  private boolean selected(Workload w) {
    if (only.isEmpty()) {
      return !(Workloads.GROUPS_ON_REQUEST && Workloads.isGroup(w))
          && !(Workloads.FORWARD_ON_REQUEST && w.kind() == Workload.Kind.FORWARD);
    }
    return only.stream().anyMatch(o -> w.name().equals(o) || w.name().startsWith(o));
  }

  private static String line(Workload w, Run run) {
    StringBuilder b = new StringBuilder(run.system).append(':');
    for (Workload.Metric m : w.metrics()) {
      Double v = run.values.get(m.key());
      if (v != null) {
        b.append(String.format(Locale.ROOT, " %s %s", fmt(v), m.label())).append(',');
      }
    }
    b.append(String.format(Locale.ROOT, " %.1f s, steal %.1f%%", run.seconds, run.stealPercent));
    if (!run.ok) {
      b.append(" FAILED: ").append(run.note);
    }
    return b.toString();
  }

  private static String fmt(double v) {
    return Math.abs(v) >= 1000 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.3g", v);
  }

  private static String now() {
    return DateTimeFormatter.ISO_INSTANT.format(Instant.now().atOffset(ZoneOffset.UTC).withNano(0));
  }

  /** What the figures were taken on. */
  static final class Machine {
    static Map<String, Object> describe(Path repo) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("cores", Runtime.getRuntime().availableProcessors());
      m.put("cpu", firstValue(Path.of("/proc/cpuinfo"), "model name"));
      String mem = firstValue(Path.of("/proc/meminfo"), "MemTotal");
      m.put("memory_gib", mem == null ? null : Math.round(Long.parseLong(mem.replaceAll("[^0-9]", "")) / 1048576.0 * 10) / 10.0);
      m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
      m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
      m.put("kafka_version", org.apache.kafka.common.utils.AppInfoParser.getVersion());
      m.put("brook_version", brookVersion(repo.resolve("broker/target/brook.jar")));
      return m;
    }

    /** The version the broker jar's manifest names (what the broker itself reports in /stats). */
    private static String brookVersion(Path jar) {
      try (java.util.jar.JarFile f = new java.util.jar.JarFile(jar.toFile())) {
        String v = f.getManifest().getMainAttributes().getValue("Implementation-Version");
        return v == null ? "unknown" : v;
      } catch (Exception e) {
        return "unknown";
      }
    }

    private static String firstValue(Path file, String key) {
      try {
        for (String line : Files.readAllLines(file)) {
          if (line.startsWith(key)) {
            return line.substring(line.indexOf(':') + 1).trim();
          }
        }
      } catch (Exception e) {
        return null;
      }
      return null;
    }
  }
}
