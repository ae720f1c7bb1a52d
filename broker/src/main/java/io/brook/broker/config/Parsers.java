package io.brook.broker.config;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Optional;

/** Parsers for config values; each throws IllegalArgumentException with a reason. */
final class Parsers {
  private Parsers() {}

  static int positiveInt(String s) {
    int v = Integer.parseInt(s);
    if (v <= 0) {
      throw new IllegalArgumentException("must be > 0");
    }
    return v;
  }

  static int intBetween(String s, int min, int max) {
    int v = Integer.parseInt(s);
    if (v < min || v > max) {
      throw new IllegalArgumentException("must be between " + min + " and " + max);
    }
    return v;
  }

  static long longAtLeast(String s, long min) {
    long v = Long.parseLong(s);
    if (v < min) {
      throw new IllegalArgumentException("must be >= " + min);
    }
    return v;
  }

  private static final java.util.regex.Pattern ORIGIN =
      java.util.regex.Pattern.compile("https?://[A-Za-z0-9.\\[\\]:-]+");

  /** Browser origins ({@code scheme://host[:port]}, no path) separated by commas, or {@code *}; empty: none. */
  static java.util.List<String> origins(String s) {
    java.util.List<String> origins = new java.util.ArrayList<>();
    for (String part : s.split(",")) {
      String o = part.strip();
      if (o.isEmpty()) {
        continue;
      }
      if (!o.equals("*") && !ORIGIN.matcher(o).matches()) {
        throw new IllegalArgumentException("'" + o + "' is not an origin: expected scheme://host[:port] "
            + "(http or https, no path, no trailing /) or *");
      }
      origins.add(o);
    }
    return java.util.List.copyOf(origins);
  }

  static boolean bool(String s) {
    if (s.equalsIgnoreCase("true")) {
      return true;
    }
    if (s.equalsIgnoreCase("false")) {
      return false;
    }
    throw new IllegalArgumentException("must be true or false");
  }

  static Path path(String s) {
    if (s.isEmpty()) {
      throw new IllegalArgumentException("must not be empty");
    }
    return Path.of(s);
  }

  /** A path, or empty for none (a feature that is off until its file is given). */
  static Optional<Path> optionalPath(String s) {
    return s.isEmpty() ? Optional.empty() : Optional.of(Path.of(s));
  }

  static <E extends Enum<E>> E enumValue(Class<E> type, String s) {
    for (E e : type.getEnumConstants()) {
      if (e.name().equalsIgnoreCase(s)) {
        return e;
      }
    }
    throw new IllegalArgumentException("must be one of " + java.util.Arrays.stream(type.getEnumConstants())
        .map(e -> e.name().toLowerCase(java.util.Locale.ROOT)).toList());
  }

  /** host:port; port 0 picks a free port. IPv6 hosts in brackets: [::1]:7070. */
  static InetSocketAddress hostPort(String s) {
    int colon = s.lastIndexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      throw new IllegalArgumentException("expected host:port");
    }
    String host = s.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = Integer.parseInt(s.substring(colon + 1));
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 0..65535");
    }
    return InetSocketAddress.createUnresolved(host, port);
  }

  /** host:port, or empty for none (a listener that is off). */
  static Optional<InetSocketAddress> optionalHostPort(String s) {
    return s.isEmpty() ? Optional.empty() : Optional.of(hostPort(s));
  }

  /** host:port clients connect to, or empty: not a wildcard, and a real port. */
  static Optional<InetSocketAddress> advertisedHostPort(String s) {
    Optional<InetSocketAddress> a = optionalHostPort(s);
    if (a.isPresent() && isWildcard(a.get().getHostString())) {
      throw new IllegalArgumentException("a wildcard address is not one clients can connect to: give the host "
          + "name or address clients reach this broker at");
    }
    if (a.isPresent() && a.get().getPort() == 0) {
      throw new IllegalArgumentException("port 0 is not one clients can connect to: give the real port");
    }
    return a;
  }

  /** 0.0.0.0, :: and their spellings: an address to bind on every interface, not one to connect to. */
  static boolean isWildcard(String host) {
    if (!host.matches("[0-9a-fA-F.:]+")) {
      return false; // a host name: never looked up here
    }
    try {
      return java.net.InetAddress.getByName(host).isAnyLocalAddress(); // a literal: parsed, not resolved
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }
}
