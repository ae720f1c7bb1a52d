package io.brook.broker.cli;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Option;

/** {@code --broker host:port}, defaulting to $BROOK_BROKER, then localhost:7070. */
final class BrokerOption {
  private static volatile String current = defaultAddress();

  @Option(names = "--broker", paramLabel = "HOST:PORT",
      description = "Broker address (default: $BROOK_BROKER, else localhost:7070).")
  void broker(String address) {
    current = address;
  }

  static String defaultAddress() {
    String env = System.getenv("BROOK_BROKER");
    return env == null || env.isBlank() ? "localhost:7070" : env.trim();
  }

  static String current() {
    return current;
  }

  /** A plaintext channel to the broker; large answers allowed (fetches may carry several MiB). */
  static ManagedChannel channel() {
    String address = current;
    int colon = address.lastIndexOf(':');
    if (colon <= 0) {
      throw new CliException("--broker must be host:port, got '" + address + "'", BrookCli.EXIT_USAGE);
    }
    int port;
    try {
      port = Integer.parseInt(address.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new CliException("--broker must be host:port, got '" + address + "'", BrookCli.EXIT_USAGE);
    }
    return NettyChannelBuilder.forAddress(address.substring(0, colon), port)
        .usePlaintext()
        .maxInboundMessageSize(16 << 20)
        .keepAliveTime(30, TimeUnit.SECONDS)
        .build();
  }

  /** Builds a client config; invalid options are a usage error (exit 2), named as the client names them. */
  static <T> T check(java.util.function.Supplier<T> build) {
    try {
      return build.get();
    } catch (io.brook.client.errors.ConfigException e) {
      throw new CliException(e.getMessage(), BrookCli.EXIT_USAGE);
    }
  }

  static void close(ManagedChannel channel) {
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
