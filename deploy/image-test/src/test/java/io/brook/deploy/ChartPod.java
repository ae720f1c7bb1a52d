package io.brook.deploy;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The broker's pod as the rendered chart (scripts/docker-test.sh: {@code helm template brook
 * deploy/helm/brook}, with the default values or others) describes it: its container's environment,
 * ports, mounts and properties file, the files of its ConfigMap and Secret volumes, and the
 * service-link variables the kubelet would add for the chart's Services.
 */
final class ChartPod {
  /** The Service every pod gets variables for, service links on or off (the API server's). */
  private static final Map<String, Object> API_SERVER = Map.of("metadata", Map.of("name", "kubernetes"),
      "spec", Map.of("clusterIP", "10.96.0.1", "ports", List.of(Map.of("name", "https", "port", 443))));

  private final List<Map<String, Object>> objects;

  private ChartPod(List<Map<String, Object>> objects) {
    this.objects = objects;
  }

  /** The chart rendered by scripts/docker-test.sh with its default values (system property brook.chart.rendered). */
  static ChartPod rendered() throws IOException {
    return rendered("brook.chart.rendered");
  }

  /** The chart rendered by scripts/docker-test.sh into the file the system property names. */
  static ChartPod rendered(String property) throws IOException {
    String file = System.getProperty(property, "");
    if (file.isBlank() || !Files.isRegularFile(Path.of(file))) {
      throw new IllegalStateException("no rendered chart at '" + file + "': run scripts/docker-test.sh, which "
          + "renders it with helm template and sets -D" + property);
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

  /** The names of the container's ports (grpc, http, kafka ...). */
  List<String> containerPortNames() {
    return list(container().get("ports")).stream().map(p -> (String) map(p).get("name")).toList();
  }

  /**
   * Writes the files of the container's ConfigMap and Secret volumes, as the kubelet would mount
   * them, from the objects the chart rendered (a volume naming an object the chart does not make
   * fails): one directory under {@code root} per volume, its files world-readable as a Secret
   * volume's default mode makes them, so the container's uid 10001 reads them. Returns the mount
   * path of each. emptyDir volumes and the volume claim are left to the caller.
   */
  Map<String, Path> writeConfigVolumes(Path root) throws IOException {
    Map<String, Map<String, Object>> volumes = new LinkedHashMap<>();
    for (Object v : list(podSpec().get("volumes"))) {
      volumes.put((String) map(v).get("name"), map(v));
    }
    Map<String, Path> mounts = new LinkedHashMap<>();
    for (Object m : list(container().get("volumeMounts"))) {
      String name = (String) map(m).get("name");
      Map<String, Object> volume = volumes.getOrDefault(name, Map.of());
      Map<String, String> files;
      if (volume.containsKey("configMap")) {
        files = filesOf("ConfigMap", map(volume.get("configMap")).get("name"), map(volume.get("configMap")), false);
      } else if (volume.containsKey("secret")) {
        files = filesOf("Secret", map(volume.get("secret")).get("secretName"), map(volume.get("secret")), true);
      } else {
        continue;
      }
      Path dir = Files.createDirectories(root.resolve(name));
      for (Map.Entry<String, String> f : files.entrySet()) {
        Path file = dir.resolve(f.getKey());
        Files.writeString(file, f.getValue());
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
      }
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
      mounts.put((String) map(m).get("mountPath"), dir);
    }
    return mounts;
  }

  /** The value of one key of a Secret the chart rendered, decoded. */
  String secretValue(String secretName, String key) {
    String b64 = (String) map(object("Secret", secretName).get("data")).get(key);
    if (b64 == null) {
      throw new IllegalStateException("Secret " + secretName + " has no key " + key);
    }
    return new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8);
  }

  /** A volume's files: its items (key -> path) when it lists them, else every key of the object. */
  private Map<String, String> filesOf(String kind, Object objectName, Map<String, Object> source, boolean base64) {
    Map<String, Object> data = map(object(kind, (String) objectName).get("data"));
    Map<String, String> keyToPath = new LinkedHashMap<>();
    if (source.containsKey("items")) {
      for (Object item : list(source.get("items"))) {
        keyToPath.put((String) map(item).get("key"), (String) map(item).get("path"));
      }
    } else {
      data.keySet().forEach(k -> keyToPath.put(k, k));
    }
    Map<String, String> files = new LinkedHashMap<>();
    keyToPath.forEach((key, path) -> {
      String value = (String) data.get(key);
      if (value == null) {
        throw new IllegalStateException(kind + " " + objectName + " has no key " + key);
      }
      files.put(path, base64 ? new String(Base64.getDecoder().decode(value), StandardCharsets.UTF_8) : value);
    });
    return files;
  }

  private Map<String, Object> object(String kind, String name) {
    return objects.stream().filter(o -> kind.equals(o.get("kind")) && name.equals(map(o.get("metadata")).get("name")))
        .findFirst().orElseThrow(() -> new IllegalStateException("no " + kind + " " + name + " in the rendered chart"));
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
    return map(list(podSpec().get("containers")).get(0));
  }

  private Map<String, Object> podSpec() {
    Map<String, Object> sts = objects.stream().filter(o -> "StatefulSet".equals(o.get("kind"))).findFirst()
        .orElseThrow(() -> new IllegalStateException("no StatefulSet in the rendered chart"));
    return map(map(map(sts.get("spec")).get("template")).get("spec"));
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
