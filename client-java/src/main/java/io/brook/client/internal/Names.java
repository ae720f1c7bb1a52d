package io.brook.client.internal;

import java.util.regex.Pattern;

/** The broker's rule for topic and group names, checked on the client so a bad name fails with the others. */
public final class Names {
  private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  private Names() {}

  /** Problems with a topic or group name, or null when it is fine. */
  public static String check(String name) {
    if (name == null || name.isEmpty()) {
      return "is required";
    }
    if (!NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
      return "must match [a-zA-Z0-9._-]{1,249} and not be . or ..";
    }
    return null;
  }
}
