package io.brook.broker.security;

import io.brook.broker.config.BrokerConfig;
import io.brook.broker.config.BrokerKeys;
import io.brook.broker.config.BrokerKeys.ClientAuth;
import io.brook.broker.config.ConfigException;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLException;

/**
 * The broker's TLS from tls.* (PEM files), or none. The files are read and checked once (present,
 * PEM, key matching the certificate), so that a mistake is one line naming the key and the file; the
 * gRPC server's context and the HTTP server's (http.HttpTls) are both built from what was read.
 */
public final class ServerTls {
  private final SslContext context;
  private final ClientAuth clientAuth;
  private final PrivateKey key;
  private final List<X509Certificate> chain;
  private final List<X509Certificate> clientCas;

  private ServerTls(SslContext context, ClientAuth clientAuth, PrivateKey key, List<X509Certificate> chain,
      List<X509Certificate> clientCas) {
    this.context = context;
    this.clientAuth = clientAuth;
    this.key = key;
    this.chain = chain;
    this.clientCas = clientCas;
  }

  /** The TLS of the config, or empty when tls.cert.file is not set. */
  public static Optional<ServerTls> of(BrokerConfig config) {
    Optional<Path> certFile = config.get(BrokerKeys.TLS_CERT_FILE);
    Optional<Path> keyFile = config.get(BrokerKeys.TLS_KEY_FILE);
    Optional<Path> caFile = config.get(BrokerKeys.TLS_CLIENT_CA_FILE);
    String password = config.get(BrokerKeys.TLS_KEY_PASSWORD);
    // settings that would be silently ignored are refused: the user meant something by them
    if (!password.isEmpty() && keyFile.isEmpty()) {
      throw new ConfigException("tls.key.password is set without tls.key.file: set tls.key.file (and "
          + "tls.cert.file) or remove tls.key.password");
    }
    if (caFile.isPresent() && config.get(BrokerKeys.TLS_CLIENT_AUTH) == ClientAuth.NONE) {
      throw new ConfigException("tls.client.ca.file is set with tls.client.auth=none: remove tls.client.ca.file "
          + "or choose optional/require");
    }
    if (certFile.isEmpty() && keyFile.isEmpty()) {
      if (caFile.isPresent()) {
        throw new ConfigException("tls.client.ca.file is set but TLS is off: set tls.cert.file and tls.key.file");
      }
      return Optional.empty();
    }
    if (certFile.isEmpty() || keyFile.isEmpty()) {
      throw new ConfigException(certFile.isEmpty() ? "tls.key.file is set without tls.cert.file"
          : "tls.cert.file is set without tls.key.file");
    }
    List<X509Certificate> chain = PemFiles.certificates("tls.cert.file", certFile.get());
    PrivateKey key = PemFiles.privateKey("tls.key.file", keyFile.get(), password);
    PemFiles.checkPair(key, chain.get(0), keyFile.get(), certFile.get());
    ClientAuth clientAuth = caFile.isPresent() ? config.get(BrokerKeys.TLS_CLIENT_AUTH) : ClientAuth.NONE;
    List<X509Certificate> clientCas = clientAuth == ClientAuth.NONE ? List.of()
        : PemFiles.certificates("tls.client.ca.file", caFile.get());
    try {
      SslContextBuilder builder = GrpcSslContexts.configure(
          SslContextBuilder.forServer(key, chain.toArray(X509Certificate[]::new)));
      if (clientAuth != ClientAuth.NONE) {
        builder.trustManager(clientCas.toArray(X509Certificate[]::new))
            .clientAuth(clientAuth == ClientAuth.REQUIRE
                ? io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth.REQUIRE
                : io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth.OPTIONAL);
      }
      return Optional.of(new ServerTls(builder.build(), clientAuth, key, List.copyOf(chain), clientCas));
    } catch (SSLException | IllegalArgumentException e) { // checked above; Netty may still disagree
      throw new ConfigException("tls.cert.file/tls.key.file: " + certFile.get() + ", " + keyFile.get()
          + " refused by TLS: " + e.getMessage());
    }
  }

  /** For the gRPC server. */
  public SslContext context() {
    return context;
  }

  /** The decrypted private key of tls.key.file, for the HTTP server's context. */
  public PrivateKey key() {
    return key;
  }

  /** tls.cert.file's chain, the server's certificate first. */
  public List<X509Certificate> chain() {
    return chain;
  }

  /** tls.client.ca.file's certificates; empty when client certificates are not asked for. */
  public List<X509Certificate> clientCas() {
    return clientCas;
  }

  /** NONE, OPTIONAL or REQUIRE: what is asked of clients' certificates (NONE without tls.client.ca.file). */
  public ClientAuth clientAuth() {
    return clientAuth;
  }

  /** For the start line: "TLS on, mTLS require". */
  public static String describe(Optional<ServerTls> tls) {
    return tls.map(t -> "TLS on, mTLS " + (t.clientAuth == ClientAuth.NONE ? "off" : t.clientAuth.name()
        .toLowerCase(java.util.Locale.ROOT))).orElse("TLS off");
  }
}
