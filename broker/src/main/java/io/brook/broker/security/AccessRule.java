package io.brook.broker.security;

import java.util.Set;

/**
 * One line of auth.permissions.file: a principal ({@code *}: any principal with a credential), the
 * permissions, and a resource name or name prefix (a trailing {@code *}).
 */
record AccessRule(String principal, Set<Permission> permissions, ResourceType type, String name, boolean prefix) {
  static final String ANY_PRINCIPAL = "*";

  boolean appliesTo(String who) {
    // * is for callers who showed a token or certificate; anonymous has only its own lines.
    return principal.equals(who) || (principal.equals(ANY_PRINCIPAL) && !who.equals(Principal.ANONYMOUS));
  }
}
