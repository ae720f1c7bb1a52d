package io.brook.broker.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs a command to completion with a timeout, stdout and stderr captured in files (no pipe can fill
 * up and stall it), in an environment without the caller's BROOK_ variables.
 */
final class Exec {
  static final long TIMEOUT_S = 120;

  /** What a finished command left. */
  record Result(List<String> command, int exitCode, String stdout, String stderr) {
    List<String> lines() {
      return stdout.lines().toList();
    }

    @Override
    public String toString() {
      return String.join(" ", command) + " -> exit " + exitCode + "\n--- stdout (" + stdout.length()
          + " chars):\n" + (stdout.length() > 2000 ? stdout.substring(0, 2000) + "…" : stdout)
          + "\n--- stderr:\n" + stderr;
    }
  }

  private Exec() {}

  static ProcessBuilder builder(List<String> command, Map<String, String> env, Path stdin, Path outDir)
      throws IOException {
    Files.createDirectories(outDir);
    ProcessBuilder pb = new ProcessBuilder(command)
        .redirectOutput(Files.createTempFile(outDir, "out-", ".txt").toFile())
        .redirectError(Files.createTempFile(outDir, "err-", ".txt").toFile())
        .redirectInput(stdin == null ? ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())
            : ProcessBuilder.Redirect.from(stdin.toFile()));
    pb.environment().keySet().removeIf(k -> k.startsWith("BROOK_"));
    pb.environment().putAll(env);
    return pb;
  }

  static Result run(List<String> command, Map<String, String> env, Path stdin, Path outDir)
      throws IOException, InterruptedException {
    ProcessBuilder pb = builder(command, env, stdin, outDir);
    return await(pb, pb.start(), TIMEOUT_S);
  }

  /** Waits for a process started from {@link #builder}; kills it and fails when it outlives the timeout. */
  static Result await(ProcessBuilder pb, Process p, long timeoutS) throws IOException, InterruptedException {
    if (!p.waitFor(timeoutS, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      throw new AssertionError("still running after " + timeoutS + " s: " + String.join(" ", pb.command())
          + "\n--- stdout:\n" + Files.readString(pb.redirectOutput().file().toPath())
          + "\n--- stderr:\n" + Files.readString(pb.redirectError().file().toPath()));
    }
    return new Result(pb.command(), p.exitValue(), Files.readString(pb.redirectOutput().file().toPath()),
        Files.readString(pb.redirectError().file().toPath()));
  }
}
