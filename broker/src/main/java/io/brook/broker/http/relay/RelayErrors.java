package io.brook.broker.http.relay;

import io.brook.broker.api.Errors;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.errors.LimitExceededException;
import io.grpc.Status;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Any failure of a relay handler as the error it answers: a BrokerException with the code and status
 * gRPC gives it (api.Errors, the one catalog), a {@link RelayException} as it is, anything else 500
 * logged with its stack trace (a bug: expected refusals are never logged here).
 */
public final class RelayErrors {
  private static final Logger log = LoggerFactory.getLogger(RelayErrors.class);

  private RelayErrors() {}

  /** A client mistake in the request: 400 INVALID_ARGUMENT, code INVALID_REQUEST. */
  public static BrokerException invalid(String message) {
    return new BrokerException(BrokerError.INVALID_REQUEST, message);
  }

  public static RelayError of(BrokerError error, String message) {
    return of(error, message, Map.of());
  }

  private static RelayError of(BrokerError error, String message, Map<String, String> metadata) {
    Status.Code status = Errors.status(error);
    return new RelayError(HttpStatuses.of(status), status.name(), Errors.reason(error), Errors.clip(message), metadata);
  }

  /** ErrorInfo's metadata of a limit, in gRPC's order: limit (the config key), value. */
  static Map<String, String> limit(String key, long value) {
    Map<String, String> m = new java.util.LinkedHashMap<>();
    m.put("limit", key);
    m.put("value", Long.toString(value));
    return m;
  }

  public static RelayError of(Throwable t) {
    if (t instanceof CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof RelayException r) {
      return r.error();
    }
    if (t instanceof LimitExceededException l) {
      return of(l.error(), l.getMessage(), limit(l.key(), l.limit()));
    }
    if (t instanceof BrokerException b) {
      return of(b.error(), b.getMessage());
    }
    log.warn("Unexpected failure while serving an HTTP relay request", t);
    return new RelayError(500, "INTERNAL", null, Errors.clip("internal error: " + t), Map.of());
  }
}
