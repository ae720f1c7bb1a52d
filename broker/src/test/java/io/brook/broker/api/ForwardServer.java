package io.brook.broker.api;

import io.brook.broker.config.BrokerConfig;
import io.brook.broker.core.FixedForwardRoutes;
import io.brook.broker.security.BrokerSecurity;
import io.brook.client.Security;
import io.brook.client.admin.BrookAdmin;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * ForwardService on a real gRPC server behind the broker's real auth interceptor, over two routes of
 * {@link FixedForwardRoutes}: {@code orders} (source topic orders, 3 partitions) and {@code sensors}
 * (source prefix sensor.*). The principals and what they hold:
 * root everything; ops admin on topic orders; fleet admin on topic:sensor.*; narrow admin on the
 * single topic sensor.a (not the whole prefix); viewer consume on orders; nobody nothing forwarded.
 */
public final class ForwardServer implements AutoCloseable {
  public static final Map<String, String> TOKENS = Map.of("root", "root-tok-1", "ops", "ops-tok-2",
      "fleet", "fleet-tok-3", "narrow", "narrow-tok-4", "viewer", "viewer-tok-5", "nobody", "nobody-tok-6");

  public final FixedForwardRoutes routes = new FixedForwardRoutes(List.of(
      FixedForwardRoutes.route("orders", "orders", "orders", 3),
      FixedForwardRoutes.route("sensors", "sensor.*", "sensor.a", 1)));
  private final Server server;

  public ForwardServer(Path dir) throws IOException {
    Path permissions = Files.writeString(dir.resolve("permissions"), """
        root * topic:*
        ops admin topic:orders
        fleet admin topic:sensor.*
        narrow admin topic:sensor.a
        viewer consume topic:orders
        nobody consume topic:other-*
        """);
    StringBuilder tokens = new StringBuilder();
    TOKENS.forEach((who, token) -> tokens.append(tokens.isEmpty() ? "" : ",").append(who).append('=').append(token));
    BrokerSecurity security = BrokerSecurity.load(BrokerConfig.resolve(null, Map.of(), Map.of(
        "auth.enabled", "true", "auth.tokens", tokens.toString(), "auth.permissions.file", permissions.toString())));
    ServerInterceptor auth = security.interceptor().orElseThrow();
    server = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(ServerInterceptors.intercept(new ForwardGrpcService(routes), auth))
        .build().start();
  }

  public String address() {
    return "127.0.0.1:" + server.getPort();
  }

  /** An admin client with the principal's token. */
  public BrookAdmin admin(String principal) {
    return BrookAdmin.builder().broker(address())
        .security(Security.builder().token(TOKENS.get(principal)).build()).build();
  }

  @Override
  public void close() throws InterruptedException {
    server.shutdownNow().awaitTermination();
  }
}
