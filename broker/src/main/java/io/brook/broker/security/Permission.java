package io.brook.broker.security;

import java.util.Locale;

/** What a permissions line may grant; {@code *} in the file grants all three. */
enum Permission {
  PRODUCE, CONSUME, ADMIN;

  String word() {
    return name().toLowerCase(Locale.ROOT);
  }
}
