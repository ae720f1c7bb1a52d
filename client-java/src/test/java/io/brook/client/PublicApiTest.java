package io.brook.client;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.LinkedHashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code io.brook.client.internal} is not API (it may change in any release, and the javadoc leaves
 * it out): no public or protected signature of a public class outside it may name one of its types,
 * whether as a parameter, return, field, thrown, generic argument, supertype or type bound.
 */
class PublicApiTest {
  static final String INTERNAL = "io.brook.client.internal";

  static final ArchRule NO_INTERNAL_TYPE_IN_THE_PUBLIC_API = classes().that().arePublic()
      .and().resideOutsideOfPackage(INTERNAL + "..")
      .should(new ArchCondition<JavaClass>("expose no type of " + INTERNAL + " in a public or protected signature") {
        @Override
        public void check(JavaClass c, ConditionEvents events) {
          Set<JavaType> signature = new LinkedHashSet<>(c.getInterfaces());
          c.getSuperclass().ifPresent(signature::add);
          signature.addAll(c.getTypeParameters());
          report(c, c.getName(), signature, events);
          for (JavaMember m : c.getMembers()) {
            if (m.getModifiers().contains(JavaModifier.PUBLIC) || m.getModifiers().contains(JavaModifier.PROTECTED)) {
              Set<JavaClass> types = new LinkedHashSet<>();
              if (m instanceof JavaCodeUnit u) {
                types.addAll(u.getAllInvolvedRawTypes()); // parameters, return, type parameters
                types.addAll(u.getExceptionTypes());
              } else if (m instanceof JavaField f) {
                types.addAll(f.getAllInvolvedRawTypes());
              }
              report(c, m.getFullName(), types, events);
            }
          }
        }

        private void report(JavaClass c, String where, Set<? extends JavaType> types, ConditionEvents events) {
          for (JavaType t : types) {
            for (JavaClass raw : t.getAllInvolvedRawTypes()) {
              if (raw.getPackageName().equals(INTERNAL) || raw.getPackageName().startsWith(INTERNAL + ".")) {
                events.add(SimpleConditionEvent.violated(c, where + " exposes " + raw.getName()));
              }
            }
          }
        }
      })
      .because(INTERNAL + " is not API");

  @Test
  void noPublicSignatureNamesAnInternalType() {
    var client = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.brook.client");
    assertThat(client.size()).as("client classes found").isGreaterThan(20);
    NO_INTERNAL_TYPE_IN_THE_PUBLIC_API.check(client);
  }

  @Test
  void ruleCatchesAPublicMethodThatReturnsAnInternalType() {
    var fixture = new ClassFileImporter().importPackages("io.brook.client.apifixture");
    EvaluationResult result = NO_INTERNAL_TYPE_IN_THE_PUBLIC_API.evaluate(fixture);
    assertThat(result.getFailureReport().getDetails()).singleElement().satisfies(d -> assertThat(d)
        .contains("LeaksInternalType.backoff()").contains("exposes io.brook.client.internal.Backoff"));
  }
}
