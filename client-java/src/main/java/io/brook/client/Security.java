package io.brook.client;

import io.brook.client.errors.ConfigException;
import io.brook.client.internal.channel.Channels;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLException;

/**
 * How a client connects: TLS (trusting a CA file, or the JVM's trust store), an optional client
 * certificate for mutual TLS, and an optional bearer token sent as {@code authorization: Bearer
 * <token>}. Give it to a config builder's {@code security(...)}. Immutable.
 *
 * <p>A token is sent over plaintext only to a loopback address (localhost, 127.0.0.0/8, ::1), for
 * development; to any other address it needs TLS, else every call fails UNAUTHENTICATED on the
 * client without leaving it.
 */
public final class Security {
  private static final Security PLAINTEXT = new Security(false, null, null, null, null);

  private final boolean tls;
  private final Path trustCa;
  private final Path certificate;
  private final Path key;
  private final String token;

  private Security(boolean tls, Path trustCa, Path certificate, Path key, String token) {
    this.tls = tls;
    this.trustCa = trustCa;
    this.certificate = certificate;
    this.key = key;
    this.token = token;
  }

  /** No TLS, no token (the default). */
  public static Security plaintext() {
    return PLAINTEXT;
  }

  public static Builder builder() {
    return new Builder();
  }

  public boolean tls() {
    return tls;
  }

  /** The PEM CA certificates the broker's certificate must chain to; empty: the JVM's trust store. */
  public Optional<Path> trustCa() {
    return Optional.ofNullable(trustCa);
  }

  /** The PEM client certificate chain for mutual TLS, with {@link #clientKey()}. */
  public Optional<Path> clientCertificate() {
    return Optional.ofNullable(certificate);
  }

  /** The PEM (unencrypted PKCS#8) key of {@link #clientCertificate()}. */
  public Optional<Path> clientKey() {
    return Optional.ofNullable(key);
  }

  /** The bearer token, or empty. */
  public Optional<String> token() {
    return Optional.ofNullable(token);
  }

  /**
   * A channel to {@code host:port} with these settings, for an application that shares one channel
   * between clients ({@code channel(...)} of the config builders); the caller closes it.
   */
  public ManagedChannel newChannel(String hostPort) {
    String bad = Channels.checkAddress(hostPort);
    if (bad != null) {
      throw new ConfigException("CONFIG", "broker " + bad + " (got " + hostPort + ")");
    }
    SslContext ssl = null;
    if (tls) {
      try {
        ssl = Channels.clientTls(trustCa, certificate, key);
      } catch (SSLException | IllegalArgumentException e) {
        throw new ConfigException("CONFIG", "invalid security files (" + this + "): " + e.getMessage(), e);
      }
    }
    return Channels.newChannel(hostPort, ssl, token);
  }

  @Override
  public String toString() { // never the token
    return "Security{tls=" + tls + ", trustCa=" + trustCa + ", clientCertificate=" + certificate
        + ", token=" + (token == null ? "none" : "****") + "}";
  }

  /** Collects the options; {@link #build()} checks that the files are readable. */
  public static final class Builder {
    private boolean tls;
    private Path trustCa;
    private Path certificate;
    private Path key;
    private String token;

    private Builder() {}

    /** TLS trusting the CA certificates in this PEM file. */
    public Builder trustCa(Path pemFile) {
      this.trustCa = pemFile;
      this.tls = true;
      return this;
    }

    /** TLS trusting the JVM's default trust store (a broker certificate from a public CA). */
    public Builder tls() {
      this.tls = true;
      return this;
    }

    /** Mutual TLS: the client's PEM certificate chain and its PEM PKCS#8 key (implies TLS). */
    public Builder clientCertificate(Path certificatePem, Path keyPem) {
      this.certificate = certificatePem;
      this.key = keyPem;
      this.tls = true;
      return this;
    }

    /** A bearer token (the broker's auth.tokens); null or blank: none. */
    public Builder token(String token) {
      this.token = token == null || token.isBlank() ? null : token.strip();
      return this;
    }

    public Security build() {
      List<String> problems = new ArrayList<>();
      readable("trustCa", trustCa, problems);
      readable("clientCertificate", certificate, problems);
      readable("clientKey", key, problems);
      if ((certificate == null) != (key == null)) {
        problems.add("clientCertificate needs both a certificate and a key file");
      }
      if (token != null && token.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
        problems.add("token must be printable ASCII without spaces");
      }
      if (!problems.isEmpty()) {
        throw new ConfigException("CONFIG", "invalid security options: " + String.join("; ", problems));
      }
      return new Security(tls, trustCa, certificate, key, token);
    }

    private static void readable(String option, Path file, List<String> problems) {
      if (file != null && !Files.isReadable(file)) {
        problems.add(option + " " + file + " is not a readable file");
      }
    }
  }
}
