package io.brook.deploy;

import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Volume;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;
import org.testcontainers.utility.DockerImageName;

/**
 * The Brook image as Kubernetes runs it: host network (so the test talks to 127.0.0.1 only, on
 * ports told by environment variables), read-only root filesystem with a tmpfs at /tmp, data in a
 * named Docker volume at /var/lib/brook. Ready when GET /readyz answers 200.
 */
final class BrookContainer extends GenericContainer<BrookContainer> {
  static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** Three loopback ports picked together, so no two listeners get the same one. */
  private final int[] ports = freePorts(3);
  final int grpcPort = ports[0];
  final int httpPort = ports[1];
  /**
   * Whether the broker in the image has the Kafka listener (system property brook.kafka.listener,
   * which scripts/docker-test.sh sets from {@code bin/brook config}); a broker without it refuses
   * BROOK_KAFKA_LISTEN as an unknown setting.
   */
  static final boolean KAFKA_LISTENER = Boolean.getBoolean("brook.kafka.listener");
  /** The Kafka listener's loopback port when the broker has one (host network: never 9092). */
  final int kafkaPort = ports[2];
  private final HttpClient http;
  private final String scheme;

  /** Plaintext, no authentication: the image's defaults. */
  BrookContainer(DockerImageName image, String volume) {
    this(image, volume, (SSLContext) null);
  }

  /**
   * The listeners on loopback ports of their own (gRPC, HTTP and, when the broker has it, Kafka's);
   * with {@code tls} the HTTP port is taken as HTTPS trusted by that context, for settings that turn
   * TLS on (the caller gives them, e.g. the chart's properties file).
   */
  BrookContainer(DockerImageName image, String volume, SSLContext tls) {
    super(image);
    withNetworkMode("host");
    withEnv("BROOK_GRPC_LISTEN", "127.0.0.1:" + grpcPort);
    withEnv("BROOK_HTTP_LISTEN", "127.0.0.1:" + httpPort);
    if (KAFKA_LISTENER) { // on under auth too, as the chart has it (SASL, D57)
      withEnv("BROOK_KAFKA_LISTEN", "127.0.0.1:" + kafkaPort);
    }
    withTmpFs(Map.of("/tmp", "rw"));
    withCreateContainerCmdModifier(cmd -> {
      List<Bind> binds = new ArrayList<>(); // withFileSystemBind's, then the volume
      Bind[] given = cmd.getHostConfig().getBinds();
      binds.addAll(given == null ? List.of() : List.of(given));
      binds.add(new Bind(volume, new Volume("/var/lib/brook")));
      cmd.getHostConfig().withReadonlyRootfs(true).withBinds(binds);
    });
    http = tls == null ? HTTP : HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).sslContext(tls).build();
    scheme = tls == null ? "http" : "https";
    waitingFor(new ReadyzWaitStrategy().withStartupTimeout(READY_TIMEOUT));
  }

  /**
   * With {@code secure}: TLS on gRPC, HTTP (HTTPS only, so /readyz too) and Kafka, and tokens with
   * permissions, from the files mounted read-only at /etc/brook/secure as the chart mounts Secrets.
   */
  BrookContainer(DockerImageName image, String volume, SecureFiles secure) {
    this(image, volume, secure.trustingContext());
    withFileSystemBind(secure.dir.toString(), "/etc/brook/secure", BindMode.READ_ONLY);
    withEnv(Map.of("BROOK_TLS_CERT_FILE", "/etc/brook/secure/tls.crt",
        "BROOK_TLS_KEY_FILE", "/etc/brook/secure/tls.key",
        "BROOK_AUTH_ENABLED", "true",
        "BROOK_AUTH_TOKENS_FILE", "/etc/brook/secure/tokens",
        "BROOK_AUTH_PERMISSIONS_FILE", "/etc/brook/secure/permissions"));
  }

  /** Where a Kafka client bootstraps (only when the broker has the Kafka listener). */
  String kafkaAddress() {
    return "127.0.0.1:" + kafkaPort;
  }

  String address() {
    return "127.0.0.1:" + grpcPort;
  }

  /** GET a path of the broker's HTTP port: the status code, or -1 when nothing answers. */
  int httpStatus(String path) {
    try {
      return http.send(request(path), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  String httpBody(String path) throws IOException, InterruptedException {
    return http.send(request(path), HttpResponse.BodyHandlers.ofString()).body();
  }

  private HttpRequest request(String path) {
    return HttpRequest.newBuilder(URI.create(scheme + "://127.0.0.1:" + httpPort + path))
        .timeout(Duration.ofSeconds(5)).build();
  }

  /**
   * Free ports, distinct: each socket stays open until all are picked (picked one at a time, the same
   * port came back twice and two listeners clashed: "Address already in use").
   */
  private static int[] freePorts(int n) {
    List<ServerSocket> open = new ArrayList<>();
    try {
      int[] out = new int[n];
      for (int i = 0; i < n; i++) {
        ServerSocket s = new ServerSocket(0);
        open.add(s);
        out[i] = s.getLocalPort();
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      for (ServerSocket s : open) {
        try {
          s.close();
        } catch (IOException ignored) {
          // closing a socket nothing was accepted on
        }
      }
    }
  }

  /** Polls /readyz on the host network (Testcontainers' HTTP strategy needs mapped ports). */
  private final class ReadyzWaitStrategy extends AbstractWaitStrategy {
    @Override
    protected void waitUntilReady() {
      long deadline = System.nanoTime() + startupTimeout.toNanos();
      while (System.nanoTime() < deadline) {
        if (!waitStrategyTarget.isRunning()) {
          throw new ContainerLaunchException("the broker container stopped before /readyz answered 200:\n"
              + waitStrategyTarget.getLogs());
        }
        if (httpStatus("/readyz") == 200) {
          return;
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new ContainerLaunchException("interrupted while waiting for /readyz");
        }
      }
      throw new ContainerLaunchException("/readyz did not answer 200 within " + startupTimeout + ":\n"
          + waitStrategyTarget.getLogs());
    }
  }
}
