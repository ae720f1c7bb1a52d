package io.brook.broker.security;

import java.util.regex.Pattern;

/** Who makes a call, and what the permissions grant them (compiled once per principal). */
record Principal(String name, Grants grants) {
  /** The principal of calls without credentials when auth.anonymous is on. */
  static final String ANONYMOUS = "anonymous";
  static final String NAME_RULE = "must be 1..128 of letters, digits and . _ @ - (not *)";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._@-]{1,128}");

  static boolean validName(String name) {
    return NAME.matcher(name).matches();
  }
}
