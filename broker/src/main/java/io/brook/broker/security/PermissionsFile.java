package io.brook.broker.security;

import io.brook.broker.config.ConfigException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Parses auth.permissions.file: one {@code principal permissions resource} per line, e.g. {@code
 * alice produce,consume topic:orders} or {@code * consume topic:public.*}; {@code #} comments and
 * blank lines are skipped. Any malformed line refuses the start, naming file:line.
 */
final class PermissionsFile {
  private PermissionsFile() {}

  static List<AccessRule> load(Optional<Path> file) {
    if (file.isEmpty()) {
      return List.of();
    }
    List<AccessRule> rules = new ArrayList<>();
    for (LineFile.Line line : LineFile.read("auth.permissions.file", file.get())) {
      try {
        rules.add(parse(line.text()));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(line.where() + ": " + e.getMessage());
      }
    }
    return rules;
  }

  static AccessRule parse(String line) {
    String[] f = line.split("\\s+");
    if (f.length != 3) {
      throw new IllegalArgumentException("expected 'principal permissions resource' (3 fields), got " + f.length);
    }
    String principal = f[0];
    if (!principal.equals(AccessRule.ANY_PRINCIPAL) && !Principal.validName(principal)) {
      throw new IllegalArgumentException("principal '" + principal + "' " + Principal.NAME_RULE + ", or *");
    }
    Set<Permission> permissions = EnumSet.noneOf(Permission.class);
    for (String p : f[1].split(",", -1)) {
      if (p.equals("*")) {
        permissions.addAll(EnumSet.allOf(Permission.class));
        continue;
      }
      try {
        permissions.add(Permission.valueOf(p.toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("unknown permission '" + p + "' (produce, consume, admin or *)");
      }
    }
    int colon = f[2].indexOf(':');
    ResourceType type = colon < 0 ? null : switch (f[2].substring(0, colon)) {
      case "topic" -> ResourceType.TOPIC;
      case "group" -> ResourceType.GROUP;
      default -> null;
    };
    if (type == null) {
      throw new IllegalArgumentException("resource '" + f[2] + "' must be topic:NAME or group:NAME");
    }
    String name = f[2].substring(colon + 1);
    boolean prefix = name.endsWith("*");
    if (prefix) {
      name = name.substring(0, name.length() - 1);
    }
    if (name.contains("*")) {
      throw new IllegalArgumentException("resource '" + f[2] + "': * may only end the name (a prefix)");
    }
    if (name.isEmpty() && !prefix) {
      throw new IllegalArgumentException("resource '" + f[2] + "' has no name (" + type.word() + ":* is all)");
    }
    return new AccessRule(principal, permissions, type, name, prefix);
  }
}
