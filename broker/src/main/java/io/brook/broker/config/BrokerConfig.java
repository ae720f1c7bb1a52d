package io.brook.broker.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The broker's effective configuration, resolved once at start from, in rising precedence: the
 * defaults, a properties file, {@code BROOK_…} environment variables, and command-line flags.
 * Unknown keys and bad values are refused, naming the key and where it came from; so is an unknown
 * {@code BROOK_} variable (a mistyped setting), except the service links Kubernetes gives a pod
 * ({@link ServiceLinks}), which are set aside and named once in the start-up log.
 */
public final class BrokerConfig {
  /**
   * BROOK_ variables that are not broker settings: the launcher's, the CLI's, the helm test script's
   * and the build and perf scripts' own (ProjectVariablesTest finds every one the project reads).
   */
  static final Set<String> NOT_SETTINGS = Set.of("BROOK_BROKER", "BROOK_CONFIG", "BROOK_JAVA", "BROOK_JAVA_OPTS",
      "BROOK_HOME", "BROOK_TOKEN", "BROOK_TOKEN_FILE", "BROOK_TLS_CA", "BROOK_TEST_TOPIC",
      "BROOK_TOOLS_DIR", "BROOK_SKIP_MAVEN", "BROOK_TEST_BUDGET_S", "BROOK_CACHE", "BROOK_DOCKER_CACHE",
      "BROOK_BASE_IMAGE", "BROOK_PERF_WORK", "BROOK_PERF_JAVA_OPTS", "BROOK_PERF_SKIP_BUILD",
      "BROOK_WRITE_GO_FIXTURES");

  private final Map<String, Object> values;
  private final Map<String, String> sources;
  private final Map<String, String> serviceLinks;
  private final List<ForwardRouteConfig> forwardRoutes;

  private BrokerConfig(Map<String, Object> values, Map<String, String> sources, Map<String, String> serviceLinks,
      List<ForwardRouteConfig> forwardRoutes) {
    this.values = values;
    this.sources = sources;
    this.serviceLinks = serviceLinks;
    this.forwardRoutes = forwardRoutes;
  }

  /**
   * @param file a properties file, or null for none
   * @param env the environment (System.getenv() outside tests)
   * @param flags settings given on the command line, by key name
   */
  public static BrokerConfig resolve(Path file, Map<String, String> env, Map<String, String> flags) {
    Map<String, ConfigKey<?>> byName = new LinkedHashMap<>();
    Map<String, ConfigKey<?>> byEnv = new LinkedHashMap<>();
    for (ConfigKey<?> k : BrokerKeys.ALL) {
      byName.put(k.name(), k);
      byEnv.put(k.envName(), k);
    }
    Map<String, String> text = new LinkedHashMap<>();
    Map<String, String> sources = new LinkedHashMap<>();
    Map<String, String> forward = new LinkedHashMap<>();
    for (ConfigKey<?> k : BrokerKeys.ALL) {
      text.put(k.name(), k.defaultText());
      sources.put(k.name(), "default");
    }
    if (file != null) {
      Properties p = new Properties();
      try (Reader r = Files.newBufferedReader(file)) {
        p.load(r);
      } catch (IOException e) {
        throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
      }
      for (String name : new TreeMap<>(p).keySet().stream().map(Object::toString).collect(Collectors.toList())) {
        if (name.startsWith(ForwardRouteConfig.PREFIX)) { // routes: only in the file (D68)
          forward.put(name, p.getProperty(name));
          continue;
        }
        if (!byName.containsKey(name)) {
          throw new ConfigException("unknown key '" + name + "' in config file " + file + suggestion(name, byName));
        }
        text.put(name, p.getProperty(name));
        sources.put(name, "file " + file);
      }
    }
    Map<String, String> serviceLinks = new TreeMap<>();
    for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
      String var = e.getKey();
      if (!var.startsWith("BROOK_") || NOT_SETTINGS.contains(var)) {
        continue;
      }
      ConfigKey<?> k = byEnv.get(var);
      if (k == null) {
        Optional<String> service = ServiceLinks.serviceOf(var, e.getValue());
        if (service.isPresent()) {
          serviceLinks.put(var, service.get().toLowerCase(Locale.ROOT).replace('_', '-'));
          continue;
        }
        throw new ConfigException("unknown environment variable " + var + ": BROOK_ variables set broker keys, "
            + "and no key is called that" + (ServiceLinks.hasShape(var) ? " (the name is shaped like a Kubernetes "
            + "service-link variable, but the value '" + e.getValue() + "' is not what Kubernetes sets)" : "")
            + suggestion(var, byEnv));
      }
      text.put(k.name(), e.getValue());
      sources.put(k.name(), "env " + var);
    }
    for (Map.Entry<String, String> e : flags.entrySet()) {
      if (!byName.containsKey(e.getKey())) {
        throw new ConfigException("unknown key '" + e.getKey() + "' on the command line" + suggestion(e.getKey(), byName));
      }
      text.put(e.getKey(), e.getValue());
      sources.put(e.getKey(), "flag");
    }
    Map<String, Object> values = new LinkedHashMap<>();
    for (ConfigKey<?> k : BrokerKeys.ALL) {
      values.put(k.name(), k.parse(text.get(k.name()), sources.get(k.name())));
    }
    List<ForwardRouteConfig> routes = ForwardRouteConfig.parse(forward, file == null ? "" : "config file " + file);
    return new BrokerConfig(values, sources, Collections.unmodifiableMap(serviceLinks), routes);
  }

  public static BrokerConfig defaults() {
    return resolve(null, Map.of(), Map.of());
  }

  private static String suggestion(String wrong, Map<String, ConfigKey<?>> known) {
    String w = wrong.toLowerCase().replace('_', '.');
    return known.values().stream()
        .filter(k -> w.contains(k.name()) || k.name().contains(w.replace("brook.", "")))
        .findFirst()
        .map(k -> " (did you mean " + k.name() + "?)")
        .orElse(" (known keys: " + String.join(", ", BrokerKeys.ALL.stream().map(ConfigKey::name).toList()) + ")");
  }

  /**
   * The Kubernetes service-link variables set aside (variable -> the Service it is for, e.g.
   * BROOK_PORT -> brook), in name order; empty outside Kubernetes or with service links off.
   */
  public Map<String, String> serviceLinks() {
    return serviceLinks;
  }

  /** The forward routes of the config file (D68), in name order; empty when none. */
  public List<ForwardRouteConfig> forwardRoutes() {
    return forwardRoutes;
  }

  @SuppressWarnings("unchecked")
  public <T> T get(ConfigKey<T> key) {
    return (T) values.get(key.name());
  }

  /** Where {@code key}'s value came from: "default", "file F", "env VAR" or "flag". */
  public String source(ConfigKey<?> key) {
    return sources.get(key.name());
  }

  /** A key's value as text, as the start-up log shows it (secrets unmasked: the caller masks them). */
  public String text(ConfigKey<?> key) {
    return render(values.get(key.name()));
  }

  /** One line per key: name = value (source); secrets masked. For the start-up log. */
  public String describe() {
    StringBuilder sb = new StringBuilder();
    for (ConfigKey<?> k : BrokerKeys.ALL) {
      Object v = values.get(k.name());
      sb.append("  ").append(k.name()).append(" = ").append(k.secret() && !render(v).isEmpty() ? "****" : render(v))
          .append("  (").append(sources.get(k.name())).append(")\n");
    }
    for (ForwardRouteConfig r : forwardRoutes) { // its kafka.* keys may hold secrets: not shown
      sb.append("  forward.").append(r.name()).append(" = ").append(r.summary()).append("\n");
    }
    return sb.toString();
  }

  /** A value as the log and the messages show it (host:port, an empty optional as ""). */
  static String render(Object v) {
    if (v instanceof java.net.InetSocketAddress a) {
      return a.getHostString() + ":" + a.getPort();
    }
    if (v instanceof java.util.Optional<?> o) {
      return o.map(BrokerConfig::render).orElse("");
    }
    return String.valueOf(v);
  }
}
