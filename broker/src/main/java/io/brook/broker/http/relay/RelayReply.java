package io.brook.broker.http.relay;

import com.google.gson.JsonElement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A relay answer: an HTTP status, a JSON body (null for none) and extra headers. Errors are answered
 * by throwing (or completing exceptionally with) a BrokerException or RelayException, never built here.
 */
public record RelayReply(int status, JsonElement body, Map<String, String> headers) {
  public RelayReply {
    headers = Map.copyOf(headers);
  }

  public static RelayReply ok(JsonElement body) {
    return new RelayReply(200, body, Map.of());
  }

  public static RelayReply of(int status, JsonElement body) {
    return new RelayReply(status, body, Map.of());
  }

  public static RelayReply noContent() {
    return new RelayReply(204, null, Map.of());
  }

  public RelayReply withHeader(String name, String value) {
    Map<String, String> h = new LinkedHashMap<>(headers);
    h.put(name, value);
    return new RelayReply(status, body, h);
  }

  /** The reply for a refusal. */
  public static RelayReply error(RelayError e) {
    RelayReply r = new RelayReply(e.httpStatus(), e.toJson(), Map.of());
    return "NOT_ENOUGH_DISK".equals(e.code()) ? r.withHeader("Retry-After", "1") : r; // as gRPC's RetryInfo
  }
}
