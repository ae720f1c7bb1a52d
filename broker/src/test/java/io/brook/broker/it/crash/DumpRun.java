package io.brook.broker.it.crash;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs {@code bin/brook dump --json --records} over partition directories and reads what it printed. */
final class DumpRun {
  static final long TIMEOUT_S = 180;

  /** One directory's dump: its records (offset and key, in log order) and its summary line. */
  record PartitionDump(Path dir, List<Long> offsets, List<String> keys, JsonObject summary) {
    boolean corrupt() {
      return summary == null || summary.get("corrupt").getAsBoolean();
    }

    String tail() {
      return summary == null ? "none" : summary.get("tail").getAsString();
    }
  }

  /** What the dump printed, per directory, and its exit code and stderr. */
  record Result(int exitCode, String stderr, Map<Path, PartitionDump> partitions) {}

  private DumpRun() {}

  static Result run(List<Path> dirs, Path workDir) throws IOException, InterruptedException {
    String launcher = System.getProperty("brook.launcher");
    if (launcher == null) {
      throw new IllegalStateException("system property brook.launcher is not set (run through failsafe)");
    }
    List<String> command = new ArrayList<>(List.of(launcher, "dump", "--json", "--records"));
    dirs.forEach(d -> command.add(d.toString()));
    Files.createDirectories(workDir);
    Path out = workDir.resolve("dump.jsonl");
    Path err = workDir.resolve("dump.err");
    ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
    pb.environment().keySet().removeIf(k -> k.startsWith("BROOK_"));
    pb.environment().put("BROOK_JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
    Process p = pb.start();
    if (!p.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      throw new IllegalStateException("brook dump still running after " + TIMEOUT_S + " s");
    }
    return new Result(p.exitValue(), Files.readString(err), parse(out));
  }

  private static Map<Path, PartitionDump> parse(Path jsonLines) throws IOException {
    Map<Path, PartitionDump> out = new LinkedHashMap<>();
    Path dir = null;
    List<Long> offsets = null;
    List<String> keys = null;
    try (BufferedReader r = Files.newBufferedReader(jsonLines, StandardCharsets.UTF_8)) {
      for (String line; (line = r.readLine()) != null; ) {
        JsonObject o = JsonParser.parseString(line).getAsJsonObject();
        switch (o.get("type").getAsString()) {
          case "partition" -> {
            dir = Path.of(o.get("dir").getAsString());
            offsets = new ArrayList<>();
            keys = new ArrayList<>();
          }
          case "record" -> {
            offsets.add(o.get("offset").getAsLong());
            JsonElement key = o.get("key");
            keys.add(key == null || key.isJsonNull() ? null : key.getAsString());
          }
          case "summary" -> out.put(dir, new PartitionDump(dir, offsets, keys, o));
          default -> { } // segments and batches: the summary has their verdict
        }
      }
    }
    return out;
  }
}
