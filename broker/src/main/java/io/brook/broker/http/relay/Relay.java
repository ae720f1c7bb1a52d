package io.brook.broker.http.relay;

import com.google.gson.JsonElement;
import io.brook.broker.security.HttpAuthenticator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.net.ssl.SSLSession;

/**
 * The REST relay as the HTTP server calls it: readiness, CORS (preflight and answer headers), the
 * route, authentication, the query's parameter names, then the route's handler on the relay
 * executor; every refusal answered as JSON ({@link RelayError}). Netty-free: the server hands it
 * the request's parts and writes the reply.
 */
public final class Relay {
  /** The OpenAPI document's path (served from the resource, without authentication). */
  public static final String OPENAPI_PATH = "/openapi.json";

  private final RelayRouter router;
  private final HttpAuthenticator auth;
  private final Cors cors;
  private final Executor executor;
  private final int maxBodyBytes;
  private final Supplier<String> notReadyReason;
  private final Supplier<JsonElement> openApi;

  /**
   * @param executor where handlers run (never the event loop: a produce appends on its thread)
   * @param maxBodyBytes the largest body a relay request may have (max.request.bytes)
   * @param notReadyReason null when the broker serves, else why not (answered 503)
   */
  public Relay(RelayRouter router, HttpAuthenticator auth, Cors cors, Executor executor, int maxBodyBytes,
      Supplier<String> notReadyReason, Supplier<JsonElement> openApi) {
    this.router = router;
    this.auth = auth;
    this.cors = cors;
    this.executor = executor;
    this.maxBodyBytes = maxBodyBytes;
    this.notReadyReason = notReadyReason;
    this.openApi = openApi;
  }

  public RelayRouter router() {
    return router;
  }

  /** Whether the relay answers this path (its routes' first segments, and the OpenAPI document). */
  public boolean handles(String path) {
    return path.equals(OPENAPI_PATH) || router.owns(path);
  }

  /** Where handlers run (and where a granted reservation goes on). */
  public Executor executor() {
    return executor;
  }

  public int maxBodyBytes() {
    return maxBodyBytes;
  }

  /** Every method and path template served (the routes and GET /openapi.json), as "GET /x/{y}". */
  public List<String> served() {
    List<String> s = new ArrayList<>();
    router.routes().forEach(r -> s.add(r.method() + " " + r.template()));
    s.add("GET " + OPENAPI_PATH);
    return s;
  }

  /**
   * Serves one request; the stage completes with the reply (a refusal too), never exceptionally.
   *
   * @param headers a request header by name (case-insensitive), or null
   * @param tls the connection's TLS session, or null
   */
  public CompletableFuture<RelayReply> serve(String method, String path, Map<String, List<String>> query,
      Function<String, String> headers, byte[] body, SSLSession tls, RelayRequest.Connection connection) {
    Map<String, String> corsHeaders = cors.answerHeaders(headers.apply("Origin"));
    CompletableFuture<RelayReply> reply;
    try {
      reply = dispatch(method, path, query, headers, body, tls, connection);
    } catch (RuntimeException e) {
      reply = CompletableFuture.failedFuture(e);
    }
    return reply.handle((r, failure) -> {
      RelayReply answer = failure != null ? errorReply(failure) : r;
      if (answer.status() == 401) {
        answer = answer.withHeader("WWW-Authenticate", "Bearer");
      }
      for (Map.Entry<String, String> h : corsHeaders.entrySet()) {
        if (!answer.headers().containsKey(h.getKey())) {
          answer = answer.withHeader(h.getKey(), h.getValue());
        }
      }
      return answer;
    });
  }

  private CompletableFuture<RelayReply> dispatch(String method, String path, Map<String, List<String>> query,
      Function<String, String> headers, byte[] body, SSLSession tls, RelayRequest.Connection connection) {
    Set<String> methods = methods(path);
    if (method.equals("OPTIONS")) {
      return CompletableFuture.completedFuture(preflight(path, methods, headers.apply("Origin")));
    }
    if (path.equals(OPENAPI_PATH) && method.equals("GET")) {
      return CompletableFuture.completedFuture(RelayReply.ok(openApi.get()));
    }
    RelayRouter.Match match = router.match(method, path);
    if (match == null) {
      if (methods.isEmpty()) {
        throw RelayException.notFound("no relay route for " + path + " (the routes are in " + OPENAPI_PATH + ")");
      }
      throw new RelayException(new RelayError(405, "UNIMPLEMENTED", null,
          "method " + method + " is not served on " + path + ": use " + String.join(", ", methods), Map.of()))
          .withAllow(methods);
    }
    String notReady = notReadyReason.get();
    if (notReady != null) {
      throw new RelayException(new RelayError(503, "UNAVAILABLE", null, notReady, Map.of()));
    }
    HttpAuthenticator.Outcome who = auth.authenticate(headers.apply("Authorization"), tls);
    if (who.refusal() != null) {
      throw RelayException.unauthenticated(who.refusal());
    }
    for (String name : query.keySet()) {
      if (!match.route().queryParams().contains(name)) {
        throw RelayErrors.invalid("unknown query parameter '" + name + "' for " + method + " "
            + match.route().template() + (match.route().queryParams().isEmpty() ? " (it takes none)"
            : " (known: " + String.join(", ", new TreeSet<>(match.route().queryParams())) + ")"));
      }
    }
    RelayRequest request = new RelayRequest(method, path, match.pathParams(), query, headers, body,
        who.access() == null ? RelayCaller.ANYONE : new RelayCaller(who.access()), connection);
    CompletableFuture<RelayReply> reply = new CompletableFuture<>();
    try {
      executor.execute(() -> {
        try {
          CompletionStage<RelayReply> stage = match.route().handler().handle(request);
          stage.whenComplete((r, failure) -> {
            if (failure != null) {
              reply.completeExceptionally(failure);
            } else {
              reply.complete(r);
            }
          });
        } catch (RuntimeException e) {
          reply.completeExceptionally(e);
        }
      });
    } catch (RejectedExecutionException stopping) {
      throw new RelayException(new RelayError(503, "UNAVAILABLE", null, "shutting down", Map.of()));
    }
    return reply;
  }

  private static RelayReply errorReply(Throwable failure) {
    RelayReply r = RelayReply.error(RelayErrors.of(failure));
    Throwable t = failure instanceof java.util.concurrent.CompletionException c && c.getCause() != null
        ? c.getCause() : failure;
    if (t instanceof RelayException e && !e.allow().isEmpty()) {
      r = r.withHeader("Allow", String.join(", ", e.allow()));
    }
    return r;
  }

  private Set<String> methods(String path) {
    Set<String> m = new java.util.LinkedHashSet<>(router.methods(path));
    if (path.equals(OPENAPI_PATH)) {
      m.add("GET");
    }
    return m;
  }

  private RelayReply preflight(String path, Set<String> methods, String origin) {
    if (methods.isEmpty()) {
      throw RelayException.notFound("no relay route for " + path);
    }
    if (!cors.allows(origin)) {
      throw new RelayException(new RelayError(403, "PERMISSION_DENIED", null, origin == null
          ? "a preflight needs an Origin header" : "origin " + origin + " is not in http.cors.origins", Map.of()));
    }
    Set<String> withOptions = new java.util.LinkedHashSet<>(methods);
    withOptions.add("OPTIONS");
    return new RelayReply(204, null, new LinkedHashMap<>(cors.preflightHeaders(origin, withOptions)));
  }
}
