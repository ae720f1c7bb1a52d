package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A regex subscription matches whole topic names, sorted, among those its member may use. */
class TopicPatternsTest {
  static final List<String> TOPICS = List.of("b", "a2", "a1", "xa1", "a1x");

  @Test
  void matchesWholeNamesOnlySorted() {
    assertThat(TopicPatterns.matching(TopicPatterns.compile("a.*"), TOPICS, t -> true))
        .containsExactly("a1", "a1x", "a2");
    assertThat(TopicPatterns.matching(TopicPatterns.compile("a1"), TOPICS, t -> true)).containsExactly("a1");
    assertThat(TopicPatterns.matching(TopicPatterns.compile("nothing.*"), TOPICS, t -> true)).isEmpty();
  }

  @Test
  void matchesOnlyTopicsTheMemberMayUse() {
    assertThat(TopicPatterns.matching(TopicPatterns.compile("a.*"), TOPICS, t -> !t.equals("a2")))
        .containsExactly("a1", "a1x");
  }

  @Test
  void aBacktrackingPatternGivesUpOnANameInsteadOfRunningForHours() {
    String name = "orders-eu-west-1-payments-v2-x-y"; // (.*){1,1000}Q ran 0.7 s on 25 characters, x1.6 per one more
    assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertThat(TopicPatterns.matching(
        TopicPatterns.compile("(.*){1,1000}Q"), List.of(name, "Q"), t -> true)).containsExactly("Q"));
    assertThatThrownBy(() -> TopicPatterns.compile("(.*){1,1000}Q", List.of("a", name)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("gives up matching topic '" + name + "'");
    assertThat(TopicPatterns.compile(".*a.*b.*", List.of(name, "x".repeat(249))).pattern())
        .as("an ordinary pattern on the longest name passes").isEqualTo(".*a.*b.*");
  }

  @Test
  void aRegexThatDoesNotCompileSaysWhatIsWrongAndWhere() {
    assertThatThrownBy(() -> TopicPatterns.compile("a("))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("Unclosed group near index 2");
    assertThatThrownBy(() -> TopicPatterns.compile("*a"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("Dangling meta character '*' near index 0");
  }
}
