package io.brook.broker.security;

import java.util.Locale;

/** The kinds of resource a permission is on: {@code topic:NAME} and {@code group:NAME}. */
enum ResourceType {
  TOPIC, GROUP;

  String word() {
    return name().toLowerCase(Locale.ROOT);
  }
}
