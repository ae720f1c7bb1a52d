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

  /**
   * As {@link #compile(String)}, refusing a pattern that gives up on one of {@code names} (see {@link
   * #matches}): such a pattern backtracks without end, so it is refused when it is given rather than
   * left to cost every later check.
   *
   * @throws IllegalArgumentException saying why it does not compile, or which name it gives up on
   */
  public static Pattern compile(String regex, Collection<String> names) {
    Pattern pattern = compile(regex);
    for (String name : names) {
      if (cost(pattern, name) < 0) {
        throw new IllegalArgumentException("it gives up matching topic '" + name + "' (more than " + budget(name)
            + " steps: nested repetition such as (a*)* backtracks without end)");
      }
    }
    return pattern;
  }

  /** The topics, sorted, whose whole name {@code pattern} matches and that {@code allowed} lets the member use. */
  public static List<String> matching(Pattern pattern, Collection<String> topics, Predicate<String> allowed) {
    TreeSet<String> out = new TreeSet<>();
    for (String t : topics) {
      if (allowed.test(t) && matches(pattern, t)) {
        out.add(t);
      }
    }
    return List.copyOf(out);
  }

  /**
   * Whether {@code pattern} matches the whole {@code name}. A match may read the name's characters at
   * most {@link #READS_PER_CHAR} times each; one that reads more gives up and counts as no match, so a
   * backtracking pattern costs a bounded time per name (the groups' tick runs on one shared thread).
   */
  static boolean matches(Pattern pattern, String name) {
    return cost(pattern, name) > 0;
  }

  /** How many characters of each name a match may read, per character: plain patterns read each a few times. */
  static final int READS_PER_CHAR = 2000;

  private static long budget(String name) {
    return (long) READS_PER_CHAR * (name.length() + 1);
  }

  /** 1 for a match, 0 for none, -1 when the match gave up. */
  private static int cost(Pattern pattern, String name) {
    try {
      return pattern.matcher(new CountedReads(name, budget(name))).matches() ? 1 : 0;
    } catch (CountedReads.Exhausted e) {
      return -1;
    }
  }

  /** A name whose reads are counted: Java's matcher reads its input only through charAt. */
  private static final class CountedReads implements CharSequence {
    private final String name;
    private long left;

    CountedReads(String name, long budget) {
      this.name = name;
      this.left = budget;
    }

    @Override
    public char charAt(int index) {
      if (--left < 0) {
        throw new Exhausted();
      }
      return name.charAt(index);
    }

    @Override
    public int length() {
      return name.length();
    }

    @Override
    public CharSequence subSequence(int start, int end) {
      return name.subSequence(start, end);
    }

    @Override
    public String toString() {
      return name;
    }

    /** Thrown out of the matcher: no stack trace, it is control flow. */
    static final class Exhausted extends RuntimeException {
      Exhausted() {
        super(null, null, false, false);
      }
    }
  }
}
