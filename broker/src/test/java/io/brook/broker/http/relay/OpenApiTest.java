package io.brook.broker.http.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * /openapi.json against the routes the relay serves, both ways: every route (method, template, its
 * path and query parameters) is in the document, and the document has nothing the relay does not
 * serve. The routes are registered as server/HttpEndpoint registers them.
 */
class OpenApiTest {
  /** Every feature's routes, as HttpEndpoint.relay registers them (services are not called here). */
  static RelayRouter served() {
    RelayRouter router = new RelayRouter();
    new RecordRoutes(null, null, io.brook.broker.metrics.ApiObserver.NONE).register(router);
    new AckRoutes(null).register(router);
    return router;
  }

  /** "METHOD template" → "in:name" of each parameter, from the routes. */
  static Map<String, TreeSet<String>> fromRoutes(RelayRouter router) {
    Map<String, TreeSet<String>> ops = new TreeMap<>();
    for (RelayRouter.Route r : router.routes()) {
      TreeSet<String> params = new TreeSet<>();
      r.pathParams().forEach(p -> params.add("path:" + p));
      r.queryParams().forEach(q -> params.add("query:" + q));
      ops.put(r.method() + " " + r.template(), params);
    }
    ops.put("GET " + Relay.OPENAPI_PATH, new TreeSet<>());
    return ops;
  }

  static Map<String, TreeSet<String>> fromDocument(JsonObject doc) {
    Map<String, TreeSet<String>> ops = new TreeMap<>();
    JsonObject paths = doc.getAsJsonObject("paths");
    for (String path : paths.keySet()) {
      JsonObject item = paths.getAsJsonObject(path);
      for (String method : item.keySet()) {
        TreeSet<String> params = new TreeSet<>();
        JsonObject op = item.getAsJsonObject(method);
        if (op.has("parameters")) {
          for (JsonElement p : op.getAsJsonArray("parameters")) {
            JsonObject po = p.getAsJsonObject();
            params.add(po.get("in").getAsString() + ":" + po.get("name").getAsString());
          }
        }
        ops.put(method.toUpperCase(java.util.Locale.ROOT) + " " + path, params);
      }
    }
    return ops;
  }

  @Test
  void theDocumentHasExactlyTheServedRoutesAndParameters() {
    JsonObject doc = OpenApi.load().getAsJsonObject();
    assertThat(doc.get("openapi").getAsString()).isEqualTo("3.1.0");
    assertThat(fromDocument(doc)).isEqualTo(fromRoutes(served()));
  }

  @Test
  void everyPathParameterIsRequiredAndEveryReferenceResolves() {
    JsonObject doc = OpenApi.load().getAsJsonObject();
    List<String> problems = new ArrayList<>();
    JsonObject paths = doc.getAsJsonObject("paths");
    for (String path : paths.keySet()) {
      for (Map.Entry<String, JsonElement> op : paths.getAsJsonObject(path).entrySet()) {
        JsonObject o = op.getValue().getAsJsonObject();
        if (!o.has("responses")) {
          problems.add(op.getKey() + " " + path + " has no responses");
        }
        if (o.has("parameters")) {
          for (JsonElement p : o.getAsJsonArray("parameters")) {
            JsonObject po = p.getAsJsonObject();
            if (po.get("in").getAsString().equals("path") && !(po.has("required") && po.get("required").getAsBoolean())) {
              problems.add(path + ": path parameter " + po.get("name") + " must be required");
            }
          }
        }
      }
    }
    refs(doc, doc, problems);
    assertThat(problems).isEmpty();
  }

  private static void refs(JsonObject doc, JsonElement e, List<String> problems) {
    if (e.isJsonObject()) {
      for (Map.Entry<String, JsonElement> m : e.getAsJsonObject().entrySet()) {
        if (m.getKey().equals("$ref")) {
          JsonElement at = doc;
          for (String part : m.getValue().getAsString().substring(2).split("/")) {
            at = at != null && at.isJsonObject() ? at.getAsJsonObject().get(part) : null;
          }
          if (at == null) {
            problems.add("unresolved " + m.getValue());
          }
        } else {
          refs(doc, m.getValue(), problems);
        }
      }
    } else if (e.isJsonArray()) {
      e.getAsJsonArray().forEach(x -> refs(doc, x, problems));
    }
  }
}
