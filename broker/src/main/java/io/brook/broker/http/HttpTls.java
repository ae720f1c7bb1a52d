package io.brook.broker.http;

import io.brook.broker.config.BrokerKeys;
import io.brook.broker.config.ConfigException;
import io.brook.broker.security.ServerTls;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.security.cert.X509Certificate;
import java.util.Optional;
import javax.net.ssl.SSLException;

/**
 * The HTTP server's TLS: the same key, certificate and client CAs as gRPC's, read and checked once
 * by ServerTls, in a context for netty-all (gRPC's is for its shaded copy of Netty).
 */
public final class HttpTls {
  private HttpTls() {}

  /** The server context, or null for plaintext. */
  public static SslContext context(Optional<ServerTls> tls) {
    if (tls.isEmpty()) {
      return null;
    }
    ServerTls t = tls.get();
    try {
      SslContextBuilder b = SslContextBuilder.forServer(t.key(), t.chain().toArray(X509Certificate[]::new));
      if (t.clientAuth() != BrokerKeys.ClientAuth.NONE) {
        b.trustManager(t.clientCas().toArray(X509Certificate[]::new))
            .clientAuth(t.clientAuth() == BrokerKeys.ClientAuth.REQUIRE ? ClientAuth.REQUIRE : ClientAuth.OPTIONAL);
      }
      return b.build();
    } catch (SSLException | RuntimeException e) { // the files were checked; Netty may still disagree
      throw new ConfigException("cannot set up TLS for HTTP from tls.cert.file and tls.key.file: " + e.getMessage());
    }
  }
}
