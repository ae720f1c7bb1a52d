package io.brook.broker.http.relay;

import com.google.gson.JsonObject;
import java.util.Map;

/**
 * One refused relay request, as the answer says it:
 * {@code {"error":{"code":..,"status":..,"message":..,"metadata":{..}}}}.
 *
 * @param httpStatus the answer's HTTP status (from {@code status} by {@link HttpStatuses})
 * @param status the gRPC status name the same refusal has on gRPC (NOT_FOUND, INVALID_ARGUMENT, ...)
 * @param code the gRPC ErrorInfo reason (UNKNOWN_TOPIC, ...), or null where gRPC sends none
 *     (authentication, a missing permission, a transport limit)
 * @param metadata the ErrorInfo metadata (LIMIT_EXCEEDED: limit, value), or empty
 */
public record RelayError(int httpStatus, String status, String code, String message, Map<String, String> metadata) {
  public RelayError {
    metadata = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(metadata)); // in order: limit, value
  }

  public JsonObject toJson() {
    JsonObject error = new JsonObject();
    if (code != null) {
      error.addProperty("code", code);
    }
    error.addProperty("status", status);
    error.addProperty("message", message == null ? "" : message);
    if (!metadata.isEmpty()) {
      JsonObject m = new JsonObject();
      metadata.forEach(m::addProperty);
      error.add("metadata", m);
    }
    JsonObject body = new JsonObject();
    body.add("error", error);
    return body;
  }
}
