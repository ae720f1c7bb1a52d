package io.brook.client;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

/**
 * The client talks to the broker over the protocol only: no class of it may use broker code,
 * Chronicle, or picocli (those belong to the broker and its CLI).
 */
class ClientBoundaryTest {
  private static final ArchRule PROTOCOL_ONLY = noClasses().that().resideInAPackage("io.brook.client..")
      .should().dependOnClassesThat().resideInAnyPackage("io.brook.broker..", "net.openhft..", "picocli..")
      .because("the client depends on io.brook.protocol only");

  /** Micrometer is an optional dependency (D34): only the binder's package may touch it. */
  private static final ArchRule MICROMETER_OPTIONAL = noClasses().that().resideInAPackage("io.brook.client..")
      .and().resideOutsideOfPackage("io.brook.client.micrometer..")
      .should().dependOnClassesThat().resideInAnyPackage("io.micrometer..")
      .because("micrometer-core is optional: a client without it must never load a class that needs it");

  @Test
  void onlyTheBinderUsesMicrometer() {
    JavaClasses client = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.brook.client");
    assertThat(client.stream().anyMatch(c -> c.getPackageName().equals("io.brook.client.micrometer")))
        .as("the binder is among the classes checked").isTrue();
    MICROMETER_OPTIONAL.check(client);
  }

  @Test
  void micrometerRuleCatchesAClassThatUsesIt() {
    JavaClasses fixture = new ClassFileImporter().importPackages("io.brook.client.archfixture");
    EvaluationResult result = MICROMETER_OPTIONAL.evaluate(fixture);
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().getDetails()).anySatisfy(d -> assertThat(d).contains("UsesMicrometer"));
  }

  @Test
  void clientUsesNoBrokerCode() {
    JavaClasses client = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.brook.client");
    assertThat(client.size()).as("client classes found").isGreaterThan(20);
    PROTOCOL_ONLY.check(client);
  }

  @Test
  void ruleCatchesAClassThatUsesBrokerCode() {
    JavaClasses fixture = new ClassFileImporter().importPackages("io.brook.client.archfixture");
    EvaluationResult result = PROTOCOL_ONLY.evaluate(fixture);
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().getDetails()).anySatisfy(d -> assertThat(d).contains("FakeBrokerClass"));
  }
}
