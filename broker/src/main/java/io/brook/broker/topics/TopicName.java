package io.brook.broker.topics;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import java.util.regex.Pattern;

/** Topic names become directory names: they are checked before anything touches the disk. */
public final class TopicName {
  private static final Pattern VALID = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  private TopicName() {}

  public static String check(String name) {
    return check("topic", name);
  }

  /** Checks a name that follows the topic-name rule; {@code kind} ("topic", "group") goes in the message. */
  public static String check(String kind, String name) {
    if (name == null || name.isEmpty()) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, "a " + kind + " name is required");
    }
    if (!VALID.matcher(name).matches() || name.equals(".") || name.equals("..")) {
      String shown = name.length() > 60 ? name.substring(0, 60) + "…(" + name.length() + " chars)" : name;
      throw new BrokerException(BrokerError.INVALID_REQUEST, "invalid " + kind + " name '" + shown
          + "': use 1 to 249 of the characters a-z A-Z 0-9 . _ - (and not '.' or '..')");
    }
    return name;
  }
}
