package io.brook.broker.server;

import io.brook.broker.api.AckGrpcService;
import io.brook.broker.api.AdminGrpcService;
import io.brook.broker.api.ClientAddress;
import io.brook.broker.api.FetchGrpcService;
import io.brook.broker.api.ForwardGrpcService;
import io.brook.broker.api.GroupGrpcService;
import io.brook.broker.api.OutboundAccounts;
import io.brook.broker.api.ProduceGrpcService;
import io.brook.broker.api.ReadinessInterceptor;
import io.brook.broker.api.RequestGuard;
import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.ForwardServiceGrpc;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The gRPC server: the brook.v1 services on the context's components, each behind its interceptors
 * (request guard, readiness, auth), plus health (no credentials: Kubernetes probes) and reflection.
 * Health says NOT_SERVING until {@link #serving()}.
 */
final class GrpcEndpoint {
  private static final List<String> SERVICES = List.of("", ProduceServiceGrpc.SERVICE_NAME,
      FetchServiceGrpc.SERVICE_NAME, AdminServiceGrpc.SERVICE_NAME, GroupServiceGrpc.SERVICE_NAME,
      AckServiceGrpc.SERVICE_NAME, ForwardServiceGrpc.SERVICE_NAME);

  private final HealthStatusManager health = new HealthStatusManager();
  private final Server server;
  private final BrokerContext ctx;

  /** @param notReadyReason why brook.v1 calls are answered UNAVAILABLE now, or null when they are served */
  GrpcEndpoint(BrokerContext ctx, Supplier<String> notReadyReason) {
    this.ctx = ctx;
    SERVICES.forEach(s -> health.setStatus(s, ServingStatus.NOT_SERVING));
    ReadinessInterceptor gate = new ReadinessInterceptor(notReadyReason);
    ClientAddress address = new ClientAddress();
    OutboundAccounts accounts = new OutboundAccounts(ctx.outbound);
    NettyServerBuilder builder = NettyServerBuilder.forAddress(
        new InetSocketAddress(ctx.grpcListen.getHostString(), ctx.grpcListen.getPort()));
    ctx.security.tls().ifPresent(tls -> builder.sslContext(tls.context()));
    server = builder
        .executor(ctx.grpcExecutor)
        .addTransportFilter(ctx.connections)
        .addTransportFilter(accounts)
        .intercept(accounts)
        .intercept(ctx.metrics.rpc()) // server-wide, so it sees what every other interceptor answers
        .maxInboundMessageSize(ctx.maxRequestBytes)
        .maxConcurrentCallsPerConnection(ctx.maxConcurrentStreams)
        // Accept the clients' keepalive pings (grpc-java and grpc-go allow 10 s at the least).
        .permitKeepAliveTime(5, TimeUnit.SECONDS)
        .permitKeepAliveWithoutCalls(true)
        .keepAliveTime(60, TimeUnit.SECONDS)
        .keepAliveTimeout(20, TimeUnit.SECONDS)
        .addService(api(new ProduceGrpcService(ctx.produce, ctx.api, accounts), withAuth(gate)))
        .addService(api(new FetchGrpcService(ctx.fetch, ctx.api, accounts), withAuth(gate)))
        .addService(api(new AdminGrpcService(ctx.topicAdmin), withAuth(gate)))
        .addService(api(new GroupGrpcService(ctx.groupService), withAuth(address, gate)))
        .addService(api(new AckGrpcService(ctx.ackService, ctx.draining, accounts), withAuth(address, gate)))
        .addService(api(new ForwardGrpcService(ctx.forwarder), withAuth(gate)))
        .addService(health.getHealthService())
        .addService(ServerInterceptors.intercept(ProtoReflectionServiceV1.newInstance(), withAuth()))
        .build();
  }

  /** The interceptors with authentication and authorization last, so that they run first (when auth is on). */
  private ServerInterceptor[] withAuth(ServerInterceptor... inner) {
    List<ServerInterceptor> all = new ArrayList<>(List.of(inner));
    ctx.security.interceptor().ifPresent(all::add);
    return all.toArray(ServerInterceptor[]::new);
  }

  /** A brook.v1 service behind its interceptors, with malformed requests answered INVALID_ARGUMENT. */
  private static ServerServiceDefinition api(BindableService service, ServerInterceptor... interceptors) {
    return ServerInterceptors.intercept(RequestGuard.guard(service.bindService()), interceptors);
  }

  void start() throws IOException {
    server.start();
  }

  /** Health says SERVING: the broker has recovered. */
  void serving() {
    SERVICES.forEach(s -> health.setStatus(s, ServingStatus.SERVING));
  }

  int port() {
    return server.getPort();
  }

  /** Health NOT_SERVING for good, and no new calls; calls in flight go on. */
  void stopAccepting() {
    health.enterTerminalState();
    server.shutdown();
  }

  /** Waits up to {@code ms} for the calls in flight to finish; false if some are still open. */
  boolean awaitCalls(long ms) throws InterruptedException {
    return server.awaitTermination(ms, TimeUnit.MILLISECONDS);
  }

  /** Cancels the calls still open, and waits a little for them to end. */
  void cancelCalls() throws InterruptedException {
    server.shutdownNow();
    server.awaitTermination(2, TimeUnit.SECONDS);
  }

  /** Cancels the calls still open without waiting (the stopping thread was interrupted). */
  void cancelCallsNow() {
    server.shutdownNow();
  }

  void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }
}
