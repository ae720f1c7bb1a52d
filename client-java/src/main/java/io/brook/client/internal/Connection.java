package io.brook.client.internal;

import io.brook.client.Security;
import io.brook.client.errors.ConfigException;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * The gRPC channel a client talks over: its own, made from {@code host:port}, or one the
 * application shares between clients (then closing the client leaves the channel open). A gRPC
 * channel reconnects by itself after the broker restarts; the clients retry the calls that failed
 * meanwhile.
 */
public final class Connection implements AutoCloseable {
  /** Fetch answers may carry several MiB. */
  private static final int MAX_INBOUND_BYTES = 64 << 20;

  private final ManagedChannel channel;
  private final boolean owned;
  private final String address;

  private Connection(ManagedChannel channel, boolean owned, String address) {
    this.channel = channel;
    this.owned = owned;
    this.address = address;
  }

  public static Connection of(String address, ManagedChannel shared) {
    return of(address, shared, Security.plaintext());
  }

  /** The security applies to a channel of the client's own; a shared channel brings its own. */
  public static Connection of(String address, ManagedChannel shared, Security security) {
    if (shared != null) {
      return new Connection(shared, false, shared.authority());
    }
    return new Connection(newChannel(address, security), true, address);
  }

  /** A channel to a checked {@code host:port}: TLS when the security asks for it, the token on every call. */
  public static ManagedChannel newChannel(String address, Security security) {
    int colon = address.lastIndexOf(':');
    String host = address.substring(0, colon);
    int port = Integer.parseInt(address.substring(colon + 1));
    NettyChannelBuilder builder = NettyChannelBuilder.forAddress(host, port)
        .maxInboundMessageSize(MAX_INBOUND_BYTES)
        .keepAliveTime(30, TimeUnit.SECONDS);
    if (security.tls()) {
      try {
        SslContextBuilder ssl = GrpcSslContexts.forClient();
        security.trustCa().ifPresent(ca -> ssl.trustManager(ca.toFile()));
        if (security.clientCertificate().isPresent()) {
          ssl.keyManager(security.clientCertificate().get().toFile(), security.clientKey().orElseThrow().toFile());
        }
        builder.sslContext(ssl.build());
      } catch (SSLException | IllegalArgumentException e) {
        throw new ConfigException("CONFIG", "invalid security files (" + security + "): " + e.getMessage(), e);
      }
    } else {
      builder.usePlaintext();
    }
    security.token().ifPresent(token -> builder.intercept(new ClientInterceptor() {
      private final BearerToken credentials = new BearerToken(token);

      @Override
      public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
        return next.newCall(method, options.withCallCredentials(credentials));
      }
    }));
    return builder.build();
  }

  /** Problems with a {@code host:port} address, or null when it is fine. */
  public static String checkAddress(String address) {
    if (address == null || address.isBlank()) {
      return "is required";
    }
    int colon = address.lastIndexOf(':');
    if (colon <= 0) {
      return "must be host:port";
    }
    try {
      int port = Integer.parseInt(address.substring(colon + 1));
      return port > 0 && port < 65536 ? null : "must have a port in 1..65535";
    } catch (NumberFormatException e) {
      return "must be host:port";
    }
  }

  public ManagedChannel channel() {
    return channel;
  }

  public String address() {
    return address;
  }

  @Override
  public void close() {
    if (!owned) {
      return;
    }
    channel.shutdown();
    try {
      if (!channel.awaitTermination(5, TimeUnit.SECONDS)) {
        channel.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      channel.shutdownNow();
    }
  }
}
