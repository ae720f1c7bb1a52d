package io.brook.broker.security;

import io.brook.broker.config.ConfigException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Bearer tokens and their principals, from {@code principal=token} lines (auth.tokens.file) and
 * entries (auth.tokens). Only SHA-256 hashes are kept, and a presented token is compared with every
 * one of them by {@link MessageDigest#isEqual}, so neither the answer nor its time tells how much of
 * a token was right. For Kafka's SASL/SCRAM each principal's first token also gets its SCRAM
 * credentials (salted, never the token), made once here.
 */
final class Tokens {
  private record Entry(String principal, byte[] hash) {}

  private final List<Entry> entries;
  /** Principal, then mechanism: its SCRAM credentials. */
  private final Map<String, Map<String, ScramSecret>> scram;

  private Tokens(List<Entry> entries, Map<String, Map<String, ScramSecret>> scram) {
    this.entries = List.copyOf(entries);
    this.scram = Map.copyOf(scram);
  }

  /** Reads the file (when given) and the inline entries; a mistake names the file and line, never the token. */
  static Tokens load(Optional<Path> file, String inline) {
    List<Entry> entries = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    Map<String, Map<String, ScramSecret>> scram = new HashMap<>();
    if (file.isPresent()) {
      for (LineFile.Line line : LineFile.read("auth.tokens.file", file.get())) {
        entries.add(entry(line.text(), seen, line.where(), scram));
      }
    }
    int n = 0;
    for (String part : inline.split(",")) {
      n++;
      if (!part.isBlank()) {
        entries.add(entry(part.strip(), seen, "auth.tokens entry " + n, scram));
      }
    }
    return new Tokens(entries, scram);
  }

  private static Entry entry(String text, Set<String> seen, String where, Map<String, Map<String, ScramSecret>> scram) {
    Entry e = entry(text, seen, where);
    // SCRAM keeps one credential per user: a principal's first token (a later one still works with PLAIN).
    scram.computeIfAbsent(e.principal, p -> {
      Map<String, ScramSecret> byMechanism = new HashMap<>();
      String token = text.substring(text.indexOf('=') + 1).strip();
      ScramSecrets.MECHANISMS.forEach(m -> byMechanism.put(m, ScramSecrets.of(m, token)));
      return Map.copyOf(byMechanism);
    });
    return e;
  }

  private static Entry entry(String text, Set<String> seen, String where) {
    int eq = text.indexOf('=');
    if (eq < 0) {
      throw new ConfigException(where + ": expected principal=token");
    }
    String principal = text.substring(0, eq).strip();
    String token = text.substring(eq + 1).strip();
    if (principal.isEmpty() || token.isEmpty()) {
      throw new ConfigException(where + ": " + (principal.isEmpty() ? "the principal" : "the token") + " is empty");
    }
    if (!Principal.validName(principal)) {
      throw new ConfigException(where + ": principal '" + principal + "' " + Principal.NAME_RULE);
    }
    if (!seen.add(token)) {
      throw new ConfigException(where + ": this token is given twice (each token names one principal)");
    }
    return new Entry(principal, hash(token));
  }

  /** The principal of a token, or null; every entry is compared, whether it matches or not. */
  String principal(String token) {
    byte[] hash = hash(token);
    String found = null;
    for (Entry e : entries) {
      if (MessageDigest.isEqual(e.hash, hash)) {
        found = e.principal;
      }
    }
    return found;
  }

  /** The SCRAM credentials of a principal that has a token, or null. */
  ScramSecret scram(String principal, String mechanism) {
    Map<String, ScramSecret> byMechanism = scram.get(principal);
    return byMechanism == null ? null : byMechanism.get(mechanism);
  }

  boolean isEmpty() {
    return entries.isEmpty();
  }

  /** Principals that have a token. */
  Set<String> principals() {
    Set<String> names = new HashSet<>();
    entries.forEach(e -> names.add(e.principal));
    return names;
  }

  private static byte[] hash(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
