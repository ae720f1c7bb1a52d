package io.brook.broker.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes service-link variables a pod gets for each Service of its namespace: set aside by
 * the broker, while every other unknown BROOK_ variable stays refused.
 */
class ServiceLinksTest {
  /**
   * What the kubelet gives for three Services (pkg/kubelet/envvars): "brook" as the chart makes it
   * (ports grpc 7070 and http 7080, TCP), "brook-ui" (an unnamed UDP port on an IPv6 cluster IP) and
   * "brook-2" (SCTP). Written out, not generated, so the test states each shape.
   */
  static Map<String, String> kubeletVariables() {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("BROOK_SERVICE_HOST", "10.96.12.34");
    env.put("BROOK_SERVICE_PORT", "7070");
    env.put("BROOK_SERVICE_PORT_GRPC", "7070");
    env.put("BROOK_SERVICE_PORT_HTTP", "7080");
    env.put("BROOK_PORT", "tcp://10.96.12.34:7070");
    env.put("BROOK_PORT_7070_TCP", "tcp://10.96.12.34:7070");
    env.put("BROOK_PORT_7070_TCP_PROTO", "tcp");
    env.put("BROOK_PORT_7070_TCP_PORT", "7070");
    env.put("BROOK_PORT_7070_TCP_ADDR", "10.96.12.34");
    env.put("BROOK_PORT_7080_TCP", "tcp://10.96.12.34:7080");
    env.put("BROOK_PORT_7080_TCP_PROTO", "tcp");
    env.put("BROOK_PORT_7080_TCP_PORT", "7080");
    env.put("BROOK_PORT_7080_TCP_ADDR", "10.96.12.34");
    env.put("BROOK_UI_SERVICE_HOST", "2001:DB8::1");
    env.put("BROOK_UI_SERVICE_PORT", "8084");
    env.put("BROOK_UI_PORT", "udp://[2001:DB8::1]:8084");
    env.put("BROOK_UI_PORT_8084_UDP", "udp://[2001:DB8::1]:8084");
    env.put("BROOK_UI_PORT_8084_UDP_PROTO", "udp");
    env.put("BROOK_UI_PORT_8084_UDP_PORT", "8084");
    env.put("BROOK_UI_PORT_8084_UDP_ADDR", "2001:DB8::1");
    env.put("BROOK_2_SERVICE_HOST", "10.96.0.7");
    env.put("BROOK_2_SERVICE_PORT", "777");
    env.put("BROOK_2_PORT", "sctp://10.96.0.7:777");
    env.put("BROOK_2_PORT_777_SCTP", "sctp://10.96.0.7:777");
    env.put("BROOK_2_PORT_777_SCTP_PROTO", "sctp");
    env.put("BROOK_2_PORT_777_SCTP_PORT", "777");
    env.put("BROOK_2_PORT_777_SCTP_ADDR", "10.96.0.7");
    return env;
  }

  @Test
  void noBrokerKeysVariableHasTheShapeOfAServiceLink() {
    for (ConfigKey<?> k : BrokerKeys.ALL) {
      assertThat(ServiceLinks.hasShape(k.envName()))
          .as(k.envName() + " (of " + k.name() + ") is shaped like a Kubernetes service-link variable: a Service "
              + "in the pod's namespace could set it, so rename the key")
          .isFalse();
    }
  }

  @Test
  void everyShapeKubernetesGivesIsSetAsideNamingItsService() {
    Map<String, String> env = new HashMap<>(kubeletVariables());
    env.put("BROOK_GRPC_THREADS", "5");

    BrokerConfig c = BrokerConfig.resolve(null, env, Map.of());

    assertThat(c.get(BrokerKeys.GRPC_THREADS)).as("a real setting beside them").isEqualTo(5);
    assertThat(c.serviceLinks().keySet()).containsExactlyInAnyOrderElementsOf(kubeletVariables().keySet());
    assertThat(c.serviceLinks())
        .containsEntry("BROOK_PORT", "brook")
        .containsEntry("BROOK_SERVICE_PORT_GRPC", "brook")
        .containsEntry("BROOK_UI_PORT_8084_UDP", "brook-ui")
        .containsEntry("BROOK_2_PORT_777_SCTP_ADDR", "brook-2");
    assertThat(BrokerConfig.defaults().serviceLinks()).isEmpty();
  }

  @Test
  void aServiceNamedLikeTheShapesIsKnownByTheValue() {
    // Service "brook-service": its first port is BROOK_SERVICE_PORT=tcp://..., not a port number
    Map<String, String> env = Map.of("BROOK_SERVICE_PORT", "tcp://10.96.0.9:80", "BROOK_SERVICE_SERVICE_HOST",
        "10.96.0.9");

    assertThat(BrokerConfig.resolve(null, env, Map.of()).serviceLinks())
        .containsEntry("BROOK_SERVICE_PORT", "brook-service")
        .containsEntry("BROOK_SERVICE_SERVICE_HOST", "brook-service");
  }

  @Test
  void nearMissesAndMistypedSettingsAreStillRefused() {
    Map<String, String> refused = new LinkedHashMap<>();
    refused.put("BROOK_GRPC_THREDS", "4");                       // a typo of a key
    refused.put("BROOK_PORT", "7070");                           // a setting the operator thought exists
    refused.put("BROOK_SERVICE_HOSTS", "10.96.12.34");           // not a shape
    refused.put("BROOK_SERVICE_HOST", "brook.example.com");      // a name, not an IP
    refused.put("BROOK_SERVICE_PORT", "http");                   // not a number
    refused.put("BROOK_SERVICE_PORT_", "7070");                  // no port name
    refused.put("BROOK_SERVICE_PORT_GRPC", "70000");             // out of range
    refused.put("BROOK_PORT_7070", "tcp://10.96.12.34:7070");    // no protocol
    refused.put("BROOK_PORT_7070_HTTP", "tcp://10.96.12.34:7070"); // not a protocol
    refused.put("BROOK_PORT_7070_TCP", "tcp://10.96.12.34:7071"); // another port than its name says
    refused.put("BROOK_PORT_7070_UDP", "tcp://10.96.12.34:7070"); // another protocol than its name says
    refused.put("BROOK_PORT_7070_TCP_PROTO", "udp");
    refused.put("BROOK_PORT_7070_TCP_PORT", "7071");
    refused.put("BROOK_PORT_07070_TCP_PORT", "07070");           // Kubernetes writes no leading zero
    refused.put("BROOK_PORT_7070_TCP_ADDRESS", "10.96.12.34");
    refused.put("BROOK_PORT_7070_TCP_ADDR", "localhost");
    refused.put("BROOK__SERVICE_HOST", "10.96.12.34");           // a Service name cannot end in '-'
    for (Map.Entry<String, String> e : refused.entrySet()) {
      Map<String, String> env = new HashMap<>(kubeletVariables());
      env.put(e.getKey(), e.getValue());
      assertThatThrownBy(() -> BrokerConfig.resolve(null, env, Map.of()))
          .as(e.getKey() + "=" + e.getValue())
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("unknown environment variable " + e.getKey() + ":");
    }
  }

  @Test
  void aServiceLinkNameWithAnotherValueSaysSo() {
    assertThatThrownBy(() -> BrokerConfig.resolve(null, Map.of("BROOK_PORT", "7070"), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unknown environment variable BROOK_PORT: BROOK_ variables set broker keys")
        .hasMessageContaining("shaped like a Kubernetes service-link variable, but the value '7070' is not what "
            + "Kubernetes sets");
  }
}
