package io.brook.broker.security;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each principal's grants, compiled once from the permission rules and shared by both doors (gRPC's
 * interceptor, the Kafka listener's authenticator): a per-request check is lookups only.
 */
final class Principals {
  private final List<AccessRule> rules;
  private final ConcurrentHashMap<String, Principal> compiled = new ConcurrentHashMap<>();

  Principals(List<AccessRule> rules) {
    this.rules = List.copyOf(rules);
  }

  Principal of(String name) {
    return compiled.computeIfAbsent(name, n -> new Principal(n, new Grants(n, rules)));
  }
}
