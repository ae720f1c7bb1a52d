package io.brook.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The broker refuses a BROOK_ variable that is no setting, so every BROOK_ variable the project's
 * own launchers, scripts, CLI and client examples read from the environment must be known to it as
 * not a setting (BrokerConfig.NOT_SETTINGS): exported in a shell, or set for the helm test's pod,
 * it must not stop a broker started there.
 */
class ProjectVariablesTest {
  private static final Path ROOT = Path.of("..");
  /** ${BROOK_X:-...} or ${BROOK_X:=...} in shell, getenv("BROOK_X") in Java, Getenv("BROOK_X") in Go. */
  private static final Pattern READ = Pattern.compile(
      "\\$\\{(BROOK_[A-Z0-9_]+):[-=]|[gG]etenv\\(\"(BROOK_[A-Z0-9_]+)\"\\)");

  @Test
  void everyBrookVariableTheProjectReadsIsASettingOrKnownAsNone() throws IOException {
    Set<String> read = variablesRead();
    assertThat(read).as("the scan finds the launcher's own").contains("BROOK_JAVA_OPTS", "BROOK_BROKER");
    Set<String> keys = BrokerKeys.ALL.stream().map(ConfigKey::envName).collect(Collectors.toSet());

    assertThat(read.stream().filter(v -> !keys.contains(v) && !BrokerConfig.NOT_SETTINGS.contains(v)))
        .as("BROOK_ variables read by the project but refused by the broker: add them to BrokerConfig.NOT_SETTINGS")
        .isEmpty();
    Map<String, String> env = new TreeMap<>();
    read.stream().filter(v -> !keys.contains(v)).forEach(v -> env.put(v, "set in the shell"));
    assertThatCode(() -> BrokerConfig.resolve(null, env, Map.of())).doesNotThrowAnyException();
  }

  @Test
  void noKeysVariableIsTakenForANonSetting() {
    for (ConfigKey<?> k : BrokerKeys.ALL) {
      assertThat(BrokerConfig.NOT_SETTINGS).as(k.envName() + " would be skipped").doesNotContain(k.envName());
    }
  }

  private static Set<String> variablesRead() throws IOException {
    Set<String> found = new TreeSet<>();
    for (String dir : new String[] {"bin", "scripts", "perf", "deploy", "broker/src/main", "client-java/src/main",
        "client-go"}) {
      try (Stream<Path> files = Files.walk(ROOT.resolve(dir))) {
        for (Path f : files.filter(ProjectVariablesTest::isSource).toList()) {
          Matcher m = READ.matcher(Files.readString(f));
          while (m.find()) {
            found.add(m.group(1) != null ? m.group(1) : m.group(2));
          }
        }
      }
    }
    return found;
  }

  private static boolean isSource(Path f) {
    String name = f.getFileName().toString();
    boolean script = name.endsWith(".sh") || name.endsWith(".java") || name.endsWith(".go")
        || f.getParent().getFileName().toString().equals("bin");
    return script && Files.isRegularFile(f) && !f.toString().contains("/target/") && !f.toString().contains("/results/");
  }
}
