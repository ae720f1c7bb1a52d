package io.brook.broker.security;

import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One principal's rules compiled for the per-message check: for each resource type and permission,
 * the exact names (a hash lookup) and the prefixes (a few startsWith). Immutable.
 */
final class Grants {
  private static final class Names {
    final Set<String> exact = new HashSet<>();
    String[] prefixes = new String[0];

    boolean matches(String name) {
      if (exact.contains(name)) {
        return true;
      }
      for (String p : prefixes) {
        if (name.startsWith(p)) {
          return true;
        }
      }
      return false;
    }

    boolean isEmpty() {
      return exact.isEmpty() && prefixes.length == 0;
    }

    /** Every name starting with {@code prefix} matches: a granted prefix covers it (exact names never do). */
    boolean coversPrefix(String prefix) {
      for (String p : prefixes) {
        if (prefix.startsWith(p)) {
          return true;
        }
      }
      return false;
    }
  }

  private final Map<ResourceType, Map<Permission, Names>> names = new EnumMap<>(ResourceType.class);

  Grants(String principal, List<AccessRule> rules) {
    for (ResourceType t : ResourceType.values()) {
      Map<Permission, Names> byPermission = new EnumMap<>(Permission.class);
      for (Permission p : Permission.values()) {
        byPermission.put(p, new Names());
      }
      names.put(t, byPermission);
    }
    for (AccessRule r : rules) {
      if (!r.appliesTo(principal)) {
        continue;
      }
      for (Permission p : r.permissions()) {
        Names n = names.get(r.type()).get(p);
        if (r.prefix()) {
          String[] more = java.util.Arrays.copyOf(n.prefixes, n.prefixes.length + 1);
          more[more.length - 1] = r.name();
          n.prefixes = more;
        } else {
          n.exact.add(r.name());
        }
      }
    }
  }

  boolean allows(Permission permission, ResourceType type, String name) {
    return names.get(type).get(permission).matches(name);
  }

  /** Any permission at all on the resource (what DescribeTopic and the list filters ask). */
  boolean allowsAny(ResourceType type, String name) {
    for (Names n : names.get(type).values()) {
      if (n.matches(name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The permission on every name starting with {@code prefix}, as a granted prefix ({@code topic:sensor.*}
   * or a shorter one) gives it: what acting on a prefix as a whole (a forward route's source) needs.
   */
  boolean allowsPrefix(Permission permission, ResourceType type, String prefix) {
    return names.get(type).get(permission).coversPrefix(prefix);
  }

  /** Any permission on every name starting with {@code prefix}. */
  boolean allowsAnyPrefix(ResourceType type, String prefix) {
    for (Names n : names.get(type).values()) {
      if (n.coversPrefix(prefix)) {
        return true;
      }
    }
    return false;
  }

  /** The permission on at least one resource of the type (InitProducer names no topic). */
  boolean hasAny(Permission permission, ResourceType type) {
    return !names.get(type).get(permission).isEmpty();
  }
}
