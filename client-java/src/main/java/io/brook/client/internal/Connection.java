package io.brook.client.internal;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.concurrent.TimeUnit;

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
    if (shared != null) {
      return new Connection(shared, false, shared.authority());
    }
    int colon = address.lastIndexOf(':');
    String host = address.substring(0, colon);
    int port = Integer.parseInt(address.substring(colon + 1));
    ManagedChannel channel = NettyChannelBuilder.forAddress(host, port)
        .usePlaintext()
        .maxInboundMessageSize(MAX_INBOUND_BYTES)
        .keepAliveTime(30, TimeUnit.SECONDS)
        .build();
    return new Connection(channel, true, address);
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
