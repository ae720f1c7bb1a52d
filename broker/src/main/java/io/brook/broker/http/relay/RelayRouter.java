package io.brook.broker.http.relay;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The relay's routes by method and path template ({@code /topics/{topic}/partitions/{partition}/records}):
 * a {@code {name}} matches one non-empty path segment, percent-decoded. Each route declares the query
 * parameters it reads; a request with another one is refused (a typo is not silently ignored), and
 * the OpenAPI test compares the declared routes and parameters with /openapi.json.
 */
public final class RelayRouter {
  /**
   * One route.
   *
   * @param queryParams the query parameters it reads (others are refused)
   */
  public record Route(String method, String template, List<String> queryParams, RelayHandler handler) {
    public Route {
      queryParams = List.copyOf(queryParams);
    }

    /** The template's {@code {name}}s, in order. */
    public List<String> pathParams() {
      List<String> names = new ArrayList<>();
      for (String s : segments(template)) {
        if (isParam(s)) {
          names.add(s.substring(1, s.length() - 1));
        }
      }
      return names;
    }
  }

  /** A route matched by a request, with its path parameters. */
  public record Match(Route route, Map<String, String> pathParams) {}

  private final List<Route> routes = new CopyOnWriteArrayList<>();

  /**
   * Adds a route. Register every route before the server starts.
   *
   * @throws IllegalArgumentException for a template that is malformed or already has this method
   */
  public RelayRouter route(String method, String template, List<String> queryParams, RelayHandler handler) {
    if (!template.startsWith("/") || template.endsWith("/") || template.contains("//")) {
      throw new IllegalArgumentException("a template is /segment[/segment...]: " + template);
    }
    for (Route r : routes) {
      if (r.method().equals(method) && r.template().equals(template)) {
        throw new IllegalArgumentException(method + " " + template + " is registered twice");
      }
    }
    routes.add(new Route(method, template, queryParams, handler));
    return this;
  }

  public List<Route> routes() {
    return List.copyOf(routes);
  }

  /** The route for this method and path, or null (see {@link #methods} for a 405). */
  public Match match(String method, String path) {
    for (Route r : routes) {
      if (r.method().equals(method)) {
        Map<String, String> params = params(r.template(), path);
        if (params != null) {
          return new Match(r, params);
        }
      }
    }
    return null;
  }

  /** The methods some route serves on this path (empty: no route has it). */
  public Set<String> methods(String path) {
    Set<String> methods = new LinkedHashSet<>();
    for (Route r : routes) {
      if (params(r.template(), path) != null) {
        methods.add(r.method());
      }
    }
    return methods;
  }

  /** Whether some route's template starts like this path's first segment (its 404s are JSON). */
  public boolean owns(String path) {
    String[] first = segments(path);
    for (Route r : routes) {
      String[] t = segments(r.template());
      if (first.length > 0 && t.length > 0 && t[0].equals(first[0])) {
        return true;
      }
    }
    return false;
  }

  private static Map<String, String> params(String template, String path) {
    String[] t = segments(template);
    String[] p = segments(path);
    if (t.length != p.length || path.endsWith("/") && !path.equals("/")) {
      return null;
    }
    Map<String, String> params = new HashMap<>();
    for (int i = 0; i < t.length; i++) {
      if (isParam(t[i])) {
        String v = decode(p[i]);
        if (v == null || v.isEmpty()) {
          return null;
        }
        params.put(t[i].substring(1, t[i].length() - 1), v);
      } else if (!t[i].equals(p[i])) {
        return null;
      }
    }
    return params;
  }

  private static String decode(String segment) {
    try {
      return URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8); // '+' is a plus in a path
    } catch (IllegalArgumentException e) {
      return null; // a bad %-escape: no match
    }
  }

  private static boolean isParam(String segment) {
    return segment.length() > 2 && segment.startsWith("{") && segment.endsWith("}");
  }

  private static String[] segments(String path) {
    String p = path.startsWith("/") ? path.substring(1) : path;
    return p.isEmpty() ? new String[0] : p.split("/", -1);
  }
}
