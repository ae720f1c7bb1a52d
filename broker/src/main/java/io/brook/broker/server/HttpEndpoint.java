package io.brook.broker.server;

import io.brook.broker.http.HttpRoutes;
import io.brook.broker.http.HttpServer;
import io.brook.broker.http.HttpTls;
import io.brook.broker.http.StatsSource;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP server on the context's components: /healthz, /readyz, /metrics and /stats, with the
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
        connections(ctx), () -> ctx.forwarder.routes()), ctx.security::httpAllowed);
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
    log.info("HTTP on {}://{}:{} (/healthz /readyz /metrics /stats)", server.scheme(),
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
