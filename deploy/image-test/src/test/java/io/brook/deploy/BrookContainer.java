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
import java.util.Map;
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

  final int grpcPort = freePort();
  final int httpPort = freePort();

  BrookContainer(DockerImageName image, String volume) {
    super(image);
    withNetworkMode("host");
    withEnv("BROOK_GRPC_LISTEN", "127.0.0.1:" + grpcPort);
    withEnv("BROOK_HTTP_LISTEN", "127.0.0.1:" + httpPort);
    withTmpFs(Map.of("/tmp", "rw"));
    withCreateContainerCmdModifier(cmd -> cmd.getHostConfig().withReadonlyRootfs(true)
        .withBinds(new Bind(volume, new Volume("/var/lib/brook"))));
    waitingFor(new ReadyzWaitStrategy(httpPort).withStartupTimeout(READY_TIMEOUT));
  }

  String address() {
    return "127.0.0.1:" + grpcPort;
  }

  /** GET a path of the broker's HTTP port: the status code, or -1 when nothing answers. */
  static int httpStatus(int port, String path) {
    try {
      return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
          .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  static String httpBody(int port, String path) throws IOException, InterruptedException {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Polls /readyz on the host network (Testcontainers' HTTP strategy needs mapped ports). */
  private static final class ReadyzWaitStrategy extends AbstractWaitStrategy {
    private final int port;

    ReadyzWaitStrategy(int port) {
      this.port = port;
    }

    @Override
    protected void waitUntilReady() {
      long deadline = System.nanoTime() + startupTimeout.toNanos();
      while (System.nanoTime() < deadline) {
        if (!waitStrategyTarget.isRunning()) {
          throw new ContainerLaunchException("the broker container stopped before /readyz answered 200:\n"
              + waitStrategyTarget.getLogs());
        }
        if (httpStatus(port, "/readyz") == 200) {
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
