package io.brook.perf.harness;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.brook.perf.harness.SystemClient.ClientSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The results file judges every goal of a workload on its own metric, against the peer. */
class ResultsTest {
  private static Workload kafkaProduce() {
    return Workloads.kafkaProtocol(true, ClientSettings.defaults(), 60).get(0);
  }

  private static Run run(String system, double recordsPerSecond, double cpuPerRecord) {
    Run r = new Run(system, 1);
    r.values.put("records_per_s", recordsPerSecond);
    r.values.put("broker_cpu_us_per_record", cpuPerRecord);
    return r;
  }

  private static JsonObject written(Workload w, List<Run> runs, Path dir) throws Exception {
    Results results = new Results(List.of(w));
    runs.forEach(r -> results.add(w, r));
    Path file = dir.resolve("results.json");
    results.write(file);
    return JsonParser.parseString(Files.readString(file)).getAsJsonObject().getAsJsonArray("workloads").get(0)
        .getAsJsonObject();
  }

  @Test
  void throughputAndCpuGoalsAreJudgedApart(@TempDir Path dir) throws Exception {
    Workload w = kafkaProduce();
    assertThat(w.systems()).containsExactly("brook-kafka", "kafka");
    JsonObject out = written(w, List.of(run("brook-kafka", 120, 6), run("kafka", 100, 10)), dir);
    var goals = out.getAsJsonArray("goals");
    assertThat(goals).hasSize(2);
    assertThat(goals.get(0).getAsJsonObject().get("metric").getAsString()).isEqualTo("records_per_s");
    assertThat(goals.get(0).getAsJsonObject().get("met").getAsBoolean()).isTrue(); // 1.2x >= 1x
    assertThat(goals.get(1).getAsJsonObject().get("metric").getAsString()).isEqualTo("broker_cpu_us_per_record");
    assertThat(goals.get(1).getAsJsonObject().get("met").getAsBoolean()).isFalse(); // 0.6x > 0.5x
    // the first goal is also written as "goal" / "goal_met", as files before several goals had it
    assertThat(out.getAsJsonObject("goal")).isEqualTo(goals.get(0));
    assertThat(out.get("goal_met").getAsBoolean()).isTrue();
    assertThat(out.getAsJsonObject("ratios").getAsJsonObject("kafka").get("broker_cpu_us_per_record").getAsDouble())
        .isEqualTo(0.6);
  }

  @Test
  void noVerdictWithoutThePeersRuns(@TempDir Path dir) throws Exception {
    JsonObject out = written(kafkaProduce(), List.of(run("brook-kafka", 120, 4)), dir);
    assertThat(out.getAsJsonArray("goals")).hasSize(2)
        .allSatisfy(g -> assertThat(g.getAsJsonObject().has("met")).isFalse());
  }
}
