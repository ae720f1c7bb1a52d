package io.brook.perf;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import io.brook.client.producer.BorrowedPackageFixture;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The perf module measures other modules through their public API, or runs benchmarks those
 * modules keep themselves (client-java's ClientCodecBenchmark); it declares no class inside another
 * module's package to reach package-private code.
 */
class PerfPackagesTest {
  static final ArchRule NOTHING_IN_THE_CLIENTS_PACKAGES = noClasses().should().resideInAPackage("io.brook.client..")
      .allowEmptyShould(false)
      .because("a benchmark of the client's package-private code belongs to client-java (ClientCodecBenchmark)");

  static final ArchRule ALL_IN_PERF = classes().should().resideInAPackage("io.brook.perf..")
      .allowEmptyShould(false)
      .because("a benchmark of a module's package-private code belongs to that module");

  /** perf's own main classes: its build output, not the jars it depends on. */
  private static JavaClasses perf() {
    JavaClasses perf = new ClassFileImporter().importPath(Path.of("target/classes"));
    assertThat(perf.size()).as("perf classes found in target/classes").isGreaterThan(20);
    return perf;
  }

  @Test
  void perfDeclaresNoClassInTheClientsPackages() {
    NOTHING_IN_THE_CLIENTS_PACKAGES.check(perf());
  }

  @Test
  void everyPerfClassIsInPerfsOwnPackage() {
    ALL_IN_PERF.check(perf());
  }

  @Test
  void rulesCatchAClassDeclaredInTheClientsPackage() {
    JavaClasses fixture = new ClassFileImporter().importClasses(BorrowedPackageFixture.class);
    for (ArchRule rule : new ArchRule[] {NOTHING_IN_THE_CLIENTS_PACKAGES, ALL_IN_PERF}) {
      assertThat(rule.evaluate(fixture).getFailureReport().getDetails()).singleElement()
          .satisfies(d -> assertThat(d).contains(BorrowedPackageFixture.class.getName()));
    }
  }
}
