package io.brook.client.internal.channel;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;

/**
 * Builds a client's gRPC channel from plain settings. It sits below every other client package
 * (it names none of them), so io.brook.client.Security can use it and internal can use Security
 * without a package cycle.
 */
public final class Channels {
  /** Fetch answers may carry several MiB. */
  private static final int MAX_INBOUND_BYTES = 64 << 20;

  private Channels() {}

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

  /** The client side of TLS: trusting the CA file (else the JVM's trust store), with an optional client certificate. */
  public static SslContext clientTls(Path trustCa, Path certificate, Path key) throws SSLException {
    SslContextBuilder ssl = GrpcSslContexts.forClient();
    if (trustCa != null) {
      ssl.trustManager(trustCa.toFile());
    }
    if (certificate != null) {
      ssl.keyManager(certificate.toFile(), key.toFile());
    }
    return ssl.build();
  }

  /** A channel to a checked {@code host:port}: TLS when given one, else plaintext; the token, if any, on every call. */
  public static ManagedChannel newChannel(String address, SslContext tls, String token) {
    int colon = address.lastIndexOf(':');
    String host = address.substring(0, colon);
    int port = Integer.parseInt(address.substring(colon + 1));
    NettyChannelBuilder builder = NettyChannelBuilder.forAddress(host, port)
        .maxInboundMessageSize(MAX_INBOUND_BYTES)
        .keepAliveTime(30, TimeUnit.SECONDS);
    if (tls != null) {
      builder.sslContext(tls);
    } else {
      builder.usePlaintext();
    }
    if (token != null) {
      builder.intercept(new ClientInterceptor() {
        private final BearerToken credentials = new BearerToken(token);

        @Override
        public <Q, A> ClientCall<Q, A> interceptCall(MethodDescriptor<Q, A> method, CallOptions options, Channel next) {
          return next.newCall(method, options.withCallCredentials(credentials));
        }
      });
    }
    return builder.build();
  }
}
