package io.brook.broker.config;

import java.net.InetSocketAddress;
import java.nio.file.Path;

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

  static long longAtLeast(String s, long min) {
    long v = Long.parseLong(s);
    if (v < min) {
      throw new IllegalArgumentException("must be >= " + min);
    }
    return v;
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
}
