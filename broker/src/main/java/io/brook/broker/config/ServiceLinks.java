package io.brook.broker.config;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.BiPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The environment variables Kubernetes gives every pod for each Service of its namespace ("service
 * links", unless the pod sets {@code enableServiceLinks: false}), as the kubelet makes them
 * (pkg/kubelet/envvars). For a Service named {@code brook} with cluster IP 10.0.0.1 and a port
 * {@code grpc} 7070/TCP:
 * <pre>
 *   BROOK_SERVICE_HOST=10.0.0.1
 *   BROOK_SERVICE_PORT=7070              the first port
 *   BROOK_SERVICE_PORT_GRPC=7070         each named port
 *   BROOK_PORT=tcp://10.0.0.1:7070       the first port
 *   BROOK_PORT_7070_TCP=tcp://10.0.0.1:7070, and _PROTO=tcp, _PORT=7070, _ADDR=10.0.0.1   each port
 * </pre>
 * A Service whose name starts with "brook" puts them in the broker's own {@code BROOK_*} namespace,
 * so the broker must tell them from a mistyped setting. It knows them by name and value together:
 * a name of these shapes with a value Kubernetes would not give it ({@code BROOK_PORT=7070}) is not one.
 */
final class ServiceLinks {
  private ServiceLinks() {}

  /** A Service's name as the kubelet writes it: upper case, '-' as '_' (a DNS label: a letter first). */
  private static final String SERVICE = "([A-Z](?:[A-Z0-9_]*[A-Z0-9])?)";
  /** A port's name, likewise. */
  private static final String PORT_NAME = "[A-Z0-9](?:[A-Z0-9_]*[A-Z0-9])?";
  private static final String PORT = "([1-9][0-9]{0,4})";
  private static final String IPV4 = "[0-9]{1,3}(?:\\.[0-9]{1,3}){3}";
  private static final String IPV6 = "[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*";
  private static final Pattern IP = Pattern.compile(IPV4 + "|" + IPV6);
  /** protocol://ip:port, an IPv6 address in brackets (as Go's net.JoinHostPort writes it). */
  private static final Pattern URL = Pattern.compile("(tcp|udp|sctp)://(?:" + IPV4 + "|\\[" + IPV6 + "]):" + PORT);

  private record Shape(Pattern name, BiPredicate<Matcher, String> valueFits) {}

  /** Tried in turn: a name may fit several (BROOK_SERVICE_PORT is also the first port of Service brook-service). */
  private static final List<Shape> SHAPES = List.of(
      new Shape(Pattern.compile(SERVICE + "_SERVICE_HOST"), (m, v) -> IP.matcher(v).matches()),
      new Shape(Pattern.compile(SERVICE + "_SERVICE_PORT(?:_" + PORT_NAME + ")?"), (m, v) -> isPort(v)),
      new Shape(Pattern.compile(SERVICE + "_PORT"), (m, v) -> isUrl(v, null, null)),
      new Shape(Pattern.compile(SERVICE + "_PORT_" + PORT + "_(TCP|UDP|SCTP)"),
          (m, v) -> isUrl(v, m.group(3), m.group(2))),
      new Shape(Pattern.compile(SERVICE + "_PORT_" + PORT + "_(TCP|UDP|SCTP)_PROTO"),
          (m, v) -> isPort(m.group(2)) && v.equals(m.group(3).toLowerCase(Locale.ROOT))),
      new Shape(Pattern.compile(SERVICE + "_PORT_" + PORT + "_(TCP|UDP|SCTP)_PORT"),
          (m, v) -> isPort(m.group(2)) && v.equals(m.group(2))),
      new Shape(Pattern.compile(SERVICE + "_PORT_" + PORT + "_(TCP|UDP|SCTP)_ADDR"),
          (m, v) -> isPort(m.group(2)) && IP.matcher(v).matches()));

  /** Whether a variable's name has one of the shapes, whatever its value. */
  static boolean hasShape(String name) {
    return SHAPES.stream().anyMatch(s -> s.name.matcher(name).matches());
  }

  /**
   * The Service a variable is a service link of, named as in the variable ({@code BROOK}); empty
   * when name and value together are not what Kubernetes gives.
   */
  static Optional<String> serviceOf(String name, String value) {
    for (Shape s : SHAPES) {
      Matcher m = s.name.matcher(name);
      if (m.matches() && s.valueFits.test(m, value)) {
        return Optional.of(m.group(1));
      }
    }
    return Optional.empty();
  }

  /** protocol://ip:port, of this lower-case protocol and port when given. */
  private static boolean isUrl(String value, String protocol, String port) {
    Matcher u = URL.matcher(value);
    return u.matches() && isPort(u.group(2))
        && (protocol == null || u.group(1).equals(protocol.toLowerCase(Locale.ROOT)))
        && (port == null || u.group(2).equals(port));
  }

  private static boolean isPort(String value) {
    return value.matches("[1-9][0-9]{0,4}") && Integer.parseInt(value) <= 65535;
  }
}
