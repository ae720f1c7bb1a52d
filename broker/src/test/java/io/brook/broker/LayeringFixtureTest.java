package io.brook.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every rule of {@link BrokerLayering} fails on the fixture class that breaks it (package
 * io.brook.broker.archfixture, whose packages mirror the broker's layers), and on nothing else
 * there; and a rule whose subject packages match no class fails rather than passes.
 */
class LayeringFixtureTest {
  static final String FIXTURE = "io.brook.broker.archfixture";
  private static JavaClasses fixture;

  @BeforeAll
  static void importFixture() {
    fixture = new ClassFileImporter().importPackages(FIXTURE);
  }

  /** Each rule, and the fixture classes (relative to the fixture root) that must be its only violators. */
  static Stream<Arguments> rulesAndTheirViolators() {
    return Stream.of(
        Arguments.of("storageImportsNothingAbove", Set.of("storage.LogReadingATopic")),
        Arguments.of("modelImportsNoOtherLayer", Set.of("errors.ErrorNamingATopic")),
        Arguments.of("coreIsCalledOnlyFromAbove", Set.of("topics.TopicCallingTheCore")),
        Arguments.of("adaptersAreUsedOnlyByServer", Set.of("metrics.MetricsNamingAnAdapter")),
        Arguments.of("cliIsImportedByNoOtherPackage", Set.of("server.ServerCallingTheCli")),
        Arguments.of("doorsCallTheCore", Set.of("api.AdapterReachingATopic")),
        Arguments.of("coreIsProtocolNeutral", Set.of("core.ServiceReturningAStatus")),
        Arguments.of("adaptersDoNotReachStorage", Set.of("api.AdapterReadingStorage")),
        Arguments.of("cliReadsStorageOnlyThroughTheDump", Set.of("cli.CommandReadingTheLog")),
        Arguments.of("noProtocolTypeBelowTheAdapters",
            Set.of("topics.TopicHoldingAByteString", "core.ServiceReturningAStatus")),
        Arguments.of("chronicleOnlyInStorage", Set.of("topics.TopicOnChronicle")),
        Arguments.of("prometheusOnlyInMetrics", Set.of("http.HttpOnPrometheus")),
        Arguments.of("javaClientOnlyInCli", Set.of("api.AdapterOnTheClient")),
        Arguments.of("kafkaClientsOnlyInKafka", Set.of("api.AdapterOnKafkaClients")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rulesAndTheirViolators")
  void ruleReportsItsFixtureViolationAndNothingElse(String rule, Set<String> violators) {
    EvaluationResult result = BrokerLayering.RULES.get(rule).apply(FIXTURE).evaluate(fixture);
    assertThat(result.hasViolation()).as(rule + " fails on the fixture").isTrue();
    List<String> details = result.getFailureReport().getDetails();
    for (String violator : violators) {
      assertThat(details).as("reported for " + violator).anyMatch(d -> d.contains("<" + FIXTURE + "." + violator));
    }
    assertThat(details).as("every violation comes from " + violators)
        .allMatch(d -> violators.stream().anyMatch(v -> d.contains("<" + FIXTURE + "." + v)));
  }

  @Test
  void cycleRuleReportsTheTopicsGroupsCycle() {
    EvaluationResult result = BrokerLayering.noPackageCycles(FIXTURE).evaluate(fixture);
    assertThat(result.getFailureReport().getDetails()).singleElement().satisfies(d -> assertThat(d)
        .contains("Cycle detected: groups -> ").contains("topics -> ")
        .contains(FIXTURE + ".topics.TopicInAGroup").contains(FIXTURE + ".groups.GroupOfTopics"));
  }

  @Test
  void everyRuleHasAFixtureTest() {
    Set<String> tested = new HashSet<>();
    rulesAndTheirViolators().forEach(a -> tested.add((String) a.get()[0]));
    tested.add("noPackageCycles");
    assertThat(tested).isEqualTo(BrokerLayering.RULES.keySet());
  }

  /**
   * A rule whose subject packages were renamed away fails instead of passing on no class. (The
   * rules whose subjects are "every class outside X" cannot go empty; LayeringTest checks that
   * every package and class the rules name has classes on the real code.)
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("ruleNames")
  void ruleFailsWhenItsSubjectPackagesMatchNothing(String rule) {
    ArchRule renamed = BrokerLayering.RULES.get(rule).apply(FIXTURE + ".renamed");
    assertThatThrownBy(() -> renamed.check(fixture)).hasMessageContaining("failed to check any classes");
  }

  static Stream<String> ruleNames() {
    return Stream.of("storageImportsNothingAbove", "modelImportsNoOtherLayer", "coreIsCalledOnlyFromAbove",
        "doorsCallTheCore", "coreIsProtocolNeutral", "adaptersDoNotReachStorage", "cliReadsStorageOnlyThroughTheDump",
        "noPackageCycles");
  }
}
