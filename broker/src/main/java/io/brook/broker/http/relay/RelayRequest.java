package io.brook.broker.http.relay;

import com.google.gson.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * One relay request as a handler sees it: its route's path parameters, the query, headers, body and
 * caller (already authenticated), plus what an asynchronous answer needs: memory for the answer
 * ({@link #reserve}) and a hook for a client that goes away ({@link #onGone}).
 */
public final class RelayRequest {
  /** What the HTTP connection provides; the server implements it. */
  public interface Connection {
    /** Completes once {@code bytes} more are reserved on the connection's outbound account. */
    CompletableFuture<Void> reserve(long bytes);

    /** Gives back {@code bytes} reserved before (a long poll holds no memory while it waits). */
    void release(long bytes);

    /** Runs {@code r} once if the connection closes before the answer is written. */
    void onGone(Runnable r);
  }

  private final String method;
  private final String path;
  private final Map<String, String> pathParams;
  private final Map<String, List<String>> query;
  private final Function<String, String> headers;
  private final byte[] body;
  private final RelayCaller caller;
  private final Connection connection;

  public RelayRequest(String method, String path, Map<String, String> pathParams, Map<String, List<String>> query,
      Function<String, String> headers, byte[] body, RelayCaller caller, Connection connection) {
    this.method = method;
    this.path = path;
    this.pathParams = Map.copyOf(pathParams);
    this.query = query;
    this.headers = headers;
    this.body = body;
    this.caller = caller;
    this.connection = connection;
  }

  public String method() {
    return method;
  }

  public String path() {
    return path;
  }

  /** A {@code {name}} of the route's template, percent-decoded; never null for a name the template has. */
  public String pathParam(String name) {
    String v = pathParams.get(name);
    if (v == null) {
      throw new IllegalArgumentException("the route has no path parameter {" + name + "}");
    }
    return v;
  }

  /** The first value of a query parameter, or null when absent. */
  public String query(String name) {
    List<String> values = query.get(name);
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  /** Every value of a query parameter, in order (empty when absent). */
  public List<String> queryAll(String name) {
    return query.getOrDefault(name, List.of());
  }

  /** The query parameters' names (for checking that no unknown one was sent). */
  public java.util.Set<String> queryNames() {
    return query.keySet();
  }

  /** A request header (case-insensitive name), or null. */
  public String header(String name) {
    return headers.apply(name);
  }

  /** The media type of the body without parameters, lower case ("application/json"), or "" when none. */
  public String mediaType() {
    String ct = header("Content-Type");
    if (ct == null) {
      return "";
    }
    int semi = ct.indexOf(';');
    return (semi < 0 ? ct : ct.substring(0, semi)).strip().toLowerCase(Locale.ROOT);
  }

  /** The body (empty when none); at most the route's limit. */
  public byte[] body() {
    return body;
  }

  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  /** The body as a JSON object (strict RFC 8259); 400 INVALID_REQUEST saying what is wrong otherwise. */
  public JsonObject jsonObject() {
    return RelayJson.parseObject(body);
  }

  public RelayCaller caller() {
    return caller;
  }

  /**
   * Reserves {@code bytes} for the answer on the connection's share of the outbound memory before
   * reading what goes in it; completes at once, or when memory is given back by other answers. The
   * reservation is made the answer's real size when it is sent, and released once written.
   */
  public CompletableFuture<Void> reserve(long bytes) {
    return connection.reserve(bytes);
  }

  /** Gives back {@code bytes} of what {@link #reserve} reserved (a long poll holds no memory while it waits). */
  public void release(long bytes) {
    connection.release(bytes);
  }

  /** Runs {@code r} if the client goes away before the answer (a long poll cancels its wait). */
  public void onGone(Runnable r) {
    connection.onGone(r);
  }
}
