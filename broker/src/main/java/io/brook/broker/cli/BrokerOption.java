package io.brook.broker.cli;

import io.brook.client.Security;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Option;

/**
 * {@code --broker host:port}, defaulting to $BROOK_BROKER, then localhost:7070; and how to connect:
 * {@code --tls-ca}, {@code --tls-cert}/{@code --tls-key}, {@code --token}/{@code --token-file}
 * (default $BROOK_TOKEN).
 */
final class BrokerOption {
  private static volatile String current = defaultAddress();
  private static volatile Path tlsCa;
  private static volatile Path tlsCert;
  private static volatile Path tlsKey;
  private static volatile String token;
  private static volatile Path tokenFile;

  @Option(names = "--broker", paramLabel = "HOST:PORT",
      description = "Broker address (default: $BROOK_BROKER, else localhost:7070).")
  void broker(String address) {
    current = address;
  }

  @Option(names = "--tls-ca", paramLabel = "FILE", description = "TLS, trusting the CA certificates in this PEM file.")
  void tlsCa(Path file) {
    tlsCa = file;
  }

  @Option(names = "--tls-cert", paramLabel = "FILE", description = "Client certificate (PEM) for mutual TLS, with --tls-key.")
  void tlsCert(Path file) {
    tlsCert = file;
  }

  @Option(names = "--tls-key", paramLabel = "FILE", description = "Key (PEM, PKCS#8) of --tls-cert.")
  void tlsKey(Path file) {
    tlsKey = file;
  }

  @Option(names = "--token", paramLabel = "TOKEN",
      description = "Bearer token (default: $BROOK_TOKEN). Visible in the process list: prefer --token-file.")
  void token(String value) {
    token = value;
  }

  @Option(names = "--token-file", paramLabel = "FILE", description = "File holding the bearer token (its first line, which must not be empty).")
  void tokenFile(Path file) {
    tokenFile = file;
  }

  /** TLS and token from the options, else $BROOK_TOKEN; bad files are a usage error. */
  static Security security() {
    String bearer = token;
    if (bearer == null && tokenFile != null) {
      try {
        bearer = Files.readAllLines(tokenFile).stream().findFirst().orElse("").strip();
      } catch (IOException e) {
        throw new CliException("--token-file: cannot read " + tokenFile + " (" + e + ")", BrookCli.EXIT_USAGE);
      }
      if (bearer.isEmpty()) { // sending no token would make the broker's refusal look like a permission problem
        throw new CliException("--token-file: the first line of " + tokenFile + " is empty (the token goes there)",
            BrookCli.EXIT_USAGE);
      }
    }
    if (bearer == null) {
      bearer = System.getenv("BROOK_TOKEN");
    }
    Security.Builder b = Security.builder().token(bearer);
    if (tlsCa != null) {
      b.trustCa(tlsCa);
    }
    if (tlsCert != null || tlsKey != null) {
      if (tlsCert == null || tlsKey == null) {
        throw new CliException("--tls-cert and --tls-key go together", BrookCli.EXIT_USAGE);
      }
      b.clientCertificate(tlsCert, tlsKey);
    }
    return check(b::build);
  }

  static String defaultAddress() {
    String env = System.getenv("BROOK_BROKER");
    return env == null || env.isBlank() ? "localhost:7070" : env.trim();
  }

  static String current() {
    return current;
  }

  /** A channel to the broker with the TLS and token options; large answers allowed (fetches may carry several MiB). */
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
    if (port <= 0 || port > 65535) {
      throw new CliException("--broker must be host:port, got '" + address + "'", BrookCli.EXIT_USAGE);
    }
    Security security = security();
    return check(() -> security.newChannel(address));
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
