package io.brook.broker.server;

import io.brook.broker.http.HttpRoutes;
import io.brook.broker.http.HttpServer;
import io.brook.broker.http.HttpTls;
import io.brook.broker.http.StatsSource;
import io.brook.broker.http.relay.AckRoutes;
import io.brook.broker.http.relay.Cors;
import io.brook.broker.http.relay.OpenApi;
import io.brook.broker.http.relay.RecordRoutes;
import io.brook.broker.http.relay.Relay;
import io.brook.broker.http.relay.RelayRouter;
import com.google.gson.JsonElement;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server on the context's components: /healthz, /readyz, /metrics, /stats and the REST
 * relay (/topics/..., /openapi.json), with the
 * broker's TLS and its callers' access. Started before recovery (probes see "recovering storage"
 * meanwhile) and closed last (they see "shutting down" until the very end).
 */
final class HttpEndpoint implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HttpEndpoint.class);

  private final BrokerContext ctx;
  private final HttpRoutes routes;
  private HttpServer server;

  /** @param notReadyReason why /readyz answers 503 now, or null when the broker serves */
  HttpEndpoint(BrokerContext ctx, Supplier<String> notReadyReason) {
    this.ctx = ctx;
    String version = Broker.class.getPackage().getImplementationVersion();
    routes = new HttpRoutes(notReadyReason, ctx.metrics, new StatsSource(version == null ? "dev" : version,
        ctx.startedAtMs, ctx.topics, ctx.groups, ctx.disk,
        connections(ctx)), ctx.security::httpAllowed, relay(ctx, notReadyReason));
  }

  /** The REST relay: each feature registers its routes on the one router. */
  private static Relay relay(BrokerContext ctx, Supplier<String> notReadyReason) {
    RelayRouter router = new RelayRouter();
    new RecordRoutes(ctx.produce, ctx.fetch, ctx.metrics.rpc()).register(router);
    new AckRoutes(ctx.ackPolls).register(router);
    JsonElement openApi = OpenApi.load();
    return new Relay(router, ctx.security.http(), new Cors(ctx.corsOrigins), ctx.grpcExecutor, ctx.maxRequestBytes,
        notReadyReason, () -> openApi);
  }

  /** Open connections per listener, for /stats (kafka counts 0 while it is off). */
  private static Map<String, IntSupplier> connections(BrokerContext ctx) {
    Map<String, IntSupplier> byListener = new LinkedHashMap<>();
    byListener.put("grpc", ctx.connections::open);
    byListener.put("kafka", ctx.metrics.kafka()::connections);
    return byListener;
  }

  synchronized void start() throws IOException {
    server = HttpServer.start(ctx.httpListen, HttpTls.context(ctx.security.tls()), routes, ctx.outbound);
    log.info("HTTP on {}://{}:{} (/healthz /readyz /metrics /stats, REST relay /topics /openapi.json)", server.scheme(),
        ctx.httpListen.getHostString(), server.port());
  }

  /** The bound port (useful when http.listen asked for port 0). */
  synchronized int port() {
    return server.port();
  }

  /** Closes the server if it was started (a start that failed before it stops the broker too). */
  @Override
  public synchronized void close() {
    if (server != null) {
      server.close();
    }
  }
}
