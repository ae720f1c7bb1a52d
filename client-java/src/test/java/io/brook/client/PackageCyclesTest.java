package io.brook.client;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.Test;

/**
 * No two packages of the client depend on each other, directly or around a loop: the feature
 * packages (producer, consumer, ack, admin) sit on internal, which uses only the vocabulary
 * (io.brook.client and errors) and internal.channel, which uses nothing of the client.
 */
class PackageCyclesTest {
  /**
   * io.brook.client and its errors are one slice, the vocabulary every other package uses: Security
   * throws ConfigException and NoOffsetForPartitionException carries TopicPartitions, both public
   * API, so they cannot be split without changing it. Every other package is a slice of its own.
   */
  static final SliceAssignment BY_PACKAGE = new SliceAssignment() {
    @Override
    public SliceIdentifier getIdentifierOf(JavaClass c) {
      String pkg = c.getPackageName();
      return SliceIdentifier.of(pkg.equals("io.brook.client.errors") ? "io.brook.client" : pkg);
    }

    @Override
    public String getDescription() {
      return "each package (io.brook.client with its errors)";
    }
  };

  static final ArchRule NO_PACKAGE_CYCLES = slices().assignedFrom(BY_PACKAGE)
      .should().beFreeOfCycles()
      .allowEmptyShould(false)
      .because("a package cycle ties both packages into one unit that can only change together");

  @Test
  void clientPackagesHaveNoCycle() {
    var client = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.brook.client");
    assertThat(client.size()).as("client classes found").isGreaterThan(20);
    NO_PACKAGE_CYCLES.check(client);
  }

  @Test
  void ruleCatchesTwoPackagesThatUseEachOther() {
    var fixture = new ClassFileImporter().importPackages("io.brook.client.cyclefixture");
    assertThat(NO_PACKAGE_CYCLES.evaluate(fixture).getFailureReport().getDetails()).singleElement()
        .satisfies(d -> assertThat(d).contains("Cycle detected")
            .contains("io.brook.client.cyclefixture.left.Left").contains("io.brook.client.cyclefixture.right.Right"));
  }
}
