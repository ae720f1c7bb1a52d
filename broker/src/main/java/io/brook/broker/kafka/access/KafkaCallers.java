package io.brook.broker.kafka.access;

import io.brook.broker.security.KafkaAuthenticator;

/** The callers a connection can be. */
public final class KafkaCallers {
  private KafkaCallers() {}

  /** Not authenticated yet: allowed nothing. */
  public static KafkaCaller nobody() {
    return NoAccess.INSTANCE;
  }

  /** An authenticated principal, with the grants the permissions file gives it. */
  public static KafkaCaller of(KafkaAuthenticator auth, String principal) {
    return new PrincipalCaller(auth.access(principal));
  }
}
