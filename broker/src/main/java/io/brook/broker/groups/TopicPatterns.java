package io.brook.broker.groups;

import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Regex subscriptions, as both group protocols that offer them resolve them: Brook's JoinGroup
 * (topic_pattern) and KIP-848's ConsumerGroupHeartbeat (SubscribedTopicRegex). A pattern is a Java
 * regular expression matched against whole topic names, among the topics its member's principal may
 * use (Kafka filters the same way, KAFKA-18813), so it never reveals a topic the member could not read.
 */
public final class TopicPatterns {
  /** The longest topic_pattern a JoinGroup may name: a pattern is a few names long and is matched at every check. */
  public static final int MAX_LENGTH = 1000;

  private TopicPatterns() {}

  /**
   * The pattern of {@code regex}, or why it is none.
   *
   * @throws IllegalArgumentException saying why it does not compile (the message names what is wrong and where)
   */
  public static Pattern compile(String regex) {
    try {
      return Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      throw new IllegalArgumentException(e.getDescription() + (e.getIndex() >= 0 ? " near index " + e.getIndex() : ""),
          e);
    }
  }

  /** The topics, sorted, whose whole name {@code pattern} matches and that {@code allowed} lets the member use. */
  public static List<String> matching(Pattern pattern, Collection<String> topics, Predicate<String> allowed) {
    TreeSet<String> out = new TreeSet<>();
    for (String t : topics) {
      if (allowed.test(t) && pattern.matcher(t).matches()) {
        out.add(t);
      }
    }
    return List.copyOf(out);
  }
}
