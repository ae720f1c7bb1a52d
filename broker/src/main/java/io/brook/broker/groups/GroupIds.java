package io.brook.broker.groups;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.topics.TopicName;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Group ids and the directories they live in. Kafka allows any non-empty id (console consumers make
 * "console-consumer-12345", tools use ':' and '/'); Brook's names become directory names. An id that
 * is a valid Brook name keeps it as its directory; any other goes under "~" and the SHA-256 of its
 * UTF-8 bytes ('~' is never in a Brook name, so the two cannot meet), and its real id is journaled,
 * so no path is ever built from it. gRPC keeps its stricter rule for the groups it creates.
 */
public final class GroupIds {
  /** Kafka sets no limit; this one keeps ids printable in one line and within a journal string. */
  public static final int MAX_LENGTH = 255;
  private static final Pattern BROOK_NAME = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  private GroupIds() {}

  /** Checks an id any door may name: non-empty, at most 255 characters, no control characters. */
  public static String check(String id) {
    if (id == null || id.isEmpty()) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, "a group id is required");
    }
    if (id.length() > MAX_LENGTH) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, "group id '" + id.substring(0, 60) + "…' has "
          + id.length() + " characters, more than " + MAX_LENGTH);
    }
    if (id.chars().anyMatch(Character::isISOControl)) {
      throw new BrokerException(BrokerError.INVALID_REQUEST, "group id '" + id.replaceAll("\\p{Cntrl}", "?")
          + "' holds control characters");
    }
    return id;
  }

  /** Whether the id is a Brook name, its own directory name. */
  public static boolean isBrookName(String id) {
    return BROOK_NAME.matcher(id).matches() && !id.equals(".") && !id.equals("..");
  }

  /** The directory name of a checked id. */
  static String directoryOf(String id) {
    if (isBrookName(id)) {
      TopicName.check("group", id);
      return id;
    }
    try {
      return "~" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(id.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }
}
