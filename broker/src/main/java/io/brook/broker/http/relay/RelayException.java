package io.brook.broker.http.relay;

import java.util.Map;

/**
 * A refusal that has no BrokerError (those are thrown as BrokerException): authentication, a missing
 * permission, a body over the limit, an unknown route. The relay answers it as its {@link RelayError}.
 */
public final class RelayException extends RuntimeException {
  private final transient RelayError error;
  private final transient java.util.Set<String> allow;

  public RelayException(RelayError error) {
    this(error, java.util.Set.of());
  }

  private RelayException(RelayError error, java.util.Set<String> allow) {
    super(error.message(), null, false, false); // expected: no stack trace
    this.error = error;
    this.allow = allow;
  }

  public RelayError error() {
    return error;
  }

  /** The methods a 405 names in its Allow header (empty otherwise). */
  public java.util.Set<String> allow() {
    return allow;
  }

  /** This refusal with an Allow header (a 405). */
  public RelayException withAllow(java.util.Set<String> methods) {
    return new RelayException(error, new java.util.LinkedHashSet<>(methods));
  }

  /** 401 UNAUTHENTICATED, as gRPC refuses a call without valid credentials. */
  public static RelayException unauthenticated(String message) {
    return new RelayException(new RelayError(401, "UNAUTHENTICATED", null, message, Map.of()));
  }

  /** 403 PERMISSION_DENIED, with gRPC's message: {@code principal bob lacks produce on topic orders}. */
  public static RelayException permissionDenied(String principal, String missing) {
    return new RelayException(new RelayError(403, "PERMISSION_DENIED", null,
        "principal " + principal + " lacks " + missing, Map.of()));
  }

  public static RelayException notFound(String message) {
    return new RelayException(new RelayError(404, "NOT_FOUND", null, message, Map.of()));
  }

  /** 413: a body over the route's limit (gRPC's RESOURCE_EXHAUSTED for a message over max.request.bytes). */
  public static RelayException tooLarge(String message, String limitKey, long limit) {
    return new RelayException(new RelayError(413, "RESOURCE_EXHAUSTED", null, message,
        limitKey == null ? Map.of() : RelayErrors.limit(limitKey, limit)));
  }

  /** 415: a body of a media type the route does not take. */
  public static RelayException unsupportedMediaType(String message) {
    return new RelayException(new RelayError(415, "INVALID_ARGUMENT", "INVALID_REQUEST", message, Map.of()));
  }
}
