package io.brook.client.internal;

import io.brook.client.Security;
import io.grpc.ManagedChannel;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC channel a client talks over: its own, made from {@code host:port}, or one the
 * application shares between clients (then closing the client leaves the channel open). A gRPC
 * channel reconnects by itself after the broker restarts; the clients retry the calls that failed
 * meanwhile.
 */
public final class Connection implements AutoCloseable {
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
    return new Connection(security.newChannel(address), true, address);
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
