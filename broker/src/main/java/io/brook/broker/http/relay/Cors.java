package io.brook.broker.http.relay;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which browser origins may call the relay (http.cors.origins: a comma list of origins such as
 * {@code https://app.example.com}, or {@code *} for any). Answers to an allowed origin carry
 * Access-Control-Allow-Origin; a preflight (OPTIONS) is answered with the route's methods and the
 * headers a producer sends. Credentials are bearer tokens in a header, never cookies, so
 * Access-Control-Allow-Credentials is never sent.
 */
public final class Cors {
  public static final Cors NONE = new Cors(List.of());
  static final String ALLOWED_HEADERS = "Authorization, Content-Type";
  static final String MAX_AGE_S = "600";

  private final Set<String> origins;
  private final boolean any;

  public Cors(List<String> origins) {
    this.any = origins.contains("*");
    this.origins = Set.copyOf(origins);
  }

  public boolean allows(String origin) {
    return origin != null && (any || origins.contains(origin));
  }

  /** The headers every answer to this origin carries (empty when the origin is not allowed or absent). */
  public Map<String, String> answerHeaders(String origin) {
    Map<String, String> h = new LinkedHashMap<>();
    if (allows(origin)) {
      h.put("Access-Control-Allow-Origin", any ? "*" : origin);
      if (!any) {
        h.put("Vary", "Origin");
      }
      h.put("Access-Control-Expose-Headers", "Retry-After");
    }
    return h;
  }

  /** The headers of a preflight's answer for a path that serves {@code methods}. */
  public Map<String, String> preflightHeaders(String origin, Set<String> methods) {
    Map<String, String> h = answerHeaders(origin);
    h.remove("Access-Control-Expose-Headers");
    h.put("Access-Control-Allow-Methods", String.join(", ", methods));
    h.put("Access-Control-Allow-Headers", ALLOWED_HEADERS);
    h.put("Access-Control-Max-Age", MAX_AGE_S);
    return h;
  }
}
