package io.brook.deploy;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The broker's pod as the rendered chart (scripts/docker-test.sh: {@code helm template brook
 * deploy/helm/brook}) describes it: its container's environment, mounts and properties file, and
 * the service-link variables the kubelet would add for the chart's Services.
 */
final class ChartPod {
  /** The Service every pod gets variables for, service links on or off (the API server's). */
  private static final Map<String, Object> API_SERVER = Map.of("metadata", Map.of("name", "kubernetes"),
      "spec", Map.of("clusterIP", "10.96.0.1", "ports", List.of(Map.of("name", "https", "port", 443))));

  private final List<Map<String, Object>> objects;

  private ChartPod(List<Map<String, Object>> objects) {
    this.objects = objects;
  }

  /** The chart rendered by scripts/docker-test.sh (system property brook.chart.rendered). */
  static ChartPod rendered() throws IOException {
    String file = System.getProperty("brook.chart.rendered", "");
    if (file.isBlank() || !Files.isRegularFile(Path.of(file))) {
      throw new IllegalStateException("no rendered chart at '" + file + "': run scripts/docker-test.sh, which "
          + "renders it with helm template and sets -Dbrook.chart.rendered");
    }
    List<Map<String, Object>> objects = new ArrayList<>();
    try (Reader r = Files.newBufferedReader(Path.of(file))) {
      for (Object doc : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(r)) {
        if (doc != null) {
          objects.add(map(doc));
        }
      }
    }
    return new ChartPod(objects);
  }

  /** The broker container's env entries, by name (the chart sets them by value only). */
  Map<String, String> containerEnv() {
    Map<String, String> env = new LinkedHashMap<>();
    for (Object e : list(container().get("env"))) {
      Map<String, Object> var = map(e);
      if (!var.containsKey("value")) {
        throw new IllegalStateException("env " + var.get("name") + " is not set by value: teach ChartPod");
      }
      env.put((String) var.get("name"), String.valueOf(var.get("value")));
    }
    return env;
  }

  /** Where the broker container mounts volumes. */
  List<String> mountPaths() {
    return list(container().get("volumeMounts")).stream().map(m -> (String) map(m).get("mountPath")).toList();
  }

  /** brook.properties of the config ConfigMap, which the pod mounts at /etc/brook/config. */
  String propertiesFile() {
    for (Map<String, Object> o : objects) {
      if ("ConfigMap".equals(o.get("kind")) && map(o.get("data")).containsKey("brook.properties")) {
        return (String) map(o.get("data")).get("brook.properties");
      }
    }
    throw new IllegalStateException("no ConfigMap with brook.properties in the rendered chart");
  }

  /** The names of the Services the chart makes. */
  List<String> serviceNames() {
    return services().stream().map(s -> (String) map(s.get("metadata")).get("name")).toList();
  }

  /**
   * The service-link variables a pod in the release's namespace gets, as if enableServiceLinks were
   * on: for each of the chart's Services with a cluster IP (made up here, as the API server would
   * give one; a headless Service gets none and gives none) and for the API server's Service.
   */
  Map<String, String> serviceLinks() {
    Map<String, String> env = new LinkedHashMap<>(linksOf(API_SERVER, "10.96.0.1"));
    int next = 10;
    for (Map<String, Object> s : services()) {
      Object ip = map(s.get("spec")).get("clusterIP");
      if (!"None".equals(ip)) {
        env.putAll(linksOf(s, ip == null ? "10.96.0." + next++ : (String) ip));
      }
    }
    return env;
  }

  /** What the kubelet makes for one Service (pkg/kubelet/envvars, FromServices and makeLinkVariables). */
  private static Map<String, String> linksOf(Map<String, Object> service, String clusterIp) {
    String prefix = ((String) map(service.get("metadata")).get("name")).toUpperCase(Locale.ROOT).replace('-', '_');
    List<Object> ports = list(map(service.get("spec")).get("ports"));
    Map<String, String> env = new LinkedHashMap<>();
    env.put(prefix + "_SERVICE_HOST", clusterIp);
    env.put(prefix + "_SERVICE_PORT", String.valueOf(map(ports.get(0)).get("port")));
    for (Object p : ports) {
      Object name = map(p).get("name");
      if (name != null) {
        env.put(prefix + "_SERVICE_PORT_" + ((String) name).toUpperCase(Locale.ROOT).replace('-', '_'),
            String.valueOf(map(p).get("port")));
      }
    }
    for (int i = 0; i < ports.size(); i++) {
      Map<String, Object> p = map(ports.get(i));
      String port = String.valueOf(p.get("port"));
      String protocol = (String) p.getOrDefault("protocol", "TCP");
      String host = clusterIp.contains(":") ? "[" + clusterIp + "]" : clusterIp;
      String url = protocol.toLowerCase(Locale.ROOT) + "://" + host + ":" + port;
      if (i == 0) {
        env.put(prefix + "_PORT", url);
      }
      String portPrefix = prefix + "_PORT_" + port + "_" + protocol.toUpperCase(Locale.ROOT);
      env.put(portPrefix, url);
      env.put(portPrefix + "_PROTO", protocol.toLowerCase(Locale.ROOT));
      env.put(portPrefix + "_PORT", port);
      env.put(portPrefix + "_ADDR", clusterIp);
    }
    return env;
  }

  private List<Map<String, Object>> services() {
    return objects.stream().filter(o -> "Service".equals(o.get("kind"))).toList();
  }

  private Map<String, Object> container() {
    Map<String, Object> sts = objects.stream().filter(o -> "StatefulSet".equals(o.get("kind"))).findFirst()
        .orElseThrow(() -> new IllegalStateException("no StatefulSet in the rendered chart"));
    Map<String, Object> podSpec = map(map(map(sts.get("spec")).get("template")).get("spec"));
    return map(list(podSpec.get("containers")).get(0));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o == null ? Map.of() : (Map<String, Object>) o;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Object o) {
    return o == null ? List.of() : (List<Object>) o;
  }
}
