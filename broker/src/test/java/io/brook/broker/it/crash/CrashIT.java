package io.brook.broker.it.crash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a real broker with SIGKILL many times under load and checks after every restart that
 * nothing answered was lost or duplicated, offsets stayed contiguous, group state came back, and
 * {@code brook dump} finds the files sound (see {@link CrashHarness}). Short in {@code make test}
 * (12 cycles); long runs through scripts/crash-test.sh. The seed is printed first: replay a failure
 * with {@code -Dcrash.seed=...} (or CRASH_SEED). The data directory stays when the run fails.
 */
class CrashIT {
  @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir;

  @Test
  void nothingAnsweredIsLostOrDuplicatedAcrossRepeatedKillMinus9() throws Exception {
    CrashConfig config = CrashConfig.fromEnvironment();
    Progress.start();
    Progress.line("CrashIT: seed " + config.seed() + ", " + config.cycles() + " cycles, load up to "
        + config.cycleMs() + " ms per cycle; data in " + dir + "; replay: " + config.replay());
    // Bounded: each cycle waits at most a minute for any one step; a hang fails instead of stalling the build.
    Duration limit = Duration.ofSeconds(300 + config.cycles() * (config.cycleMs() / 1000 + 60));
    CrashReport report;
    try (CrashHarness harness = new CrashHarness(config, dir)) {
      report = assertTimeoutPreemptively(limit, harness::run);
    }
    String text = report.text();
    text.lines().forEach(Progress::line);
    Path out = Path.of(System.getProperty("crash.report", "target/crash-report.txt"));
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, text);

    assertThat(report.violations()).as(text).isEmpty();
    assertThat(report.violationCount()).isZero();
    assertThat(report.lost()).isZero();
    assertThat(report.duplicated()).isZero();
    assertThat(report.recordsAnswered()).as("the run produced records").isPositive();
    assertThat(report.recordsChecked()).isGreaterThanOrEqualTo(report.recordsAnswered());
    assertThat(report.dumpRecordsCompared()).isPositive();
    assertThat(report.commitsAnswered()).isPositive();
    assertThat(report.acksAnswered()).isPositive();
  }
}
