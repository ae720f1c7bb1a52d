package io.brook.broker.security;

import io.brook.broker.config.BrokerConfig;
import io.brook.broker.config.BrokerKeys;
import io.brook.broker.config.BrokerKeys.ClientAuth;
import io.brook.broker.config.ConfigException;
import io.grpc.ServerInterceptor;
import java.util.List;
import java.util.Optional;

/**
 * The broker's TLS and access control from tls.* and auth.*, checked as a whole before the broker
 * touches its data directory: any mistake is a ConfigException naming the key and the file.
 */
public final class BrokerSecurity {
  private final Optional<ServerTls> tls;
  private final Optional<AuthInterceptor> auth;
  private final Optional<KafkaAuthenticator> kafka;
  private final HttpAuthenticator http;
  private final String summary;

  private BrokerSecurity(Optional<ServerTls> tls, Optional<AuthInterceptor> auth, Optional<KafkaAuthenticator> kafka,
      HttpAuthenticator http, String summary) {
    this.tls = tls;
    this.auth = auth;
    this.kafka = kafka;
    this.http = http;
    this.summary = summary;
  }

  public static BrokerSecurity load(BrokerConfig config) {
    Optional<ServerTls> tls = ServerTls.of(config);
    String tlsText = ServerTls.describe(tls);
    if (!config.get(BrokerKeys.AUTH_ENABLED)) {
      return new BrokerSecurity(tls, Optional.empty(), Optional.empty(), HttpAuthenticator.OFF, tlsText + "; auth off (anyone may do anything)");
    }
    Tokens tokens = Tokens.load(config.get(BrokerKeys.AUTH_TOKENS_FILE), config.get(BrokerKeys.AUTH_TOKENS));
    List<AccessRule> rules = PermissionsFile.load(config.get(BrokerKeys.AUTH_PERMISSIONS_FILE));
    boolean certificates = tls.isPresent() && tls.get().clientAuth() != ClientAuth.NONE;
    boolean anonymous = config.get(BrokerKeys.AUTH_ANONYMOUS);
    if (tokens.isEmpty() && !certificates && !anonymous) {
      throw new ConfigException("auth.enabled=true but nobody can authenticate: set auth.tokens.file or "
          + "auth.tokens, or tls.client.ca.file (client certificates), or auth.anonymous=true");
    }
    String summary = tlsText + "; auth on: " + tokens.principals().size() + " principals with tokens"
        + (certificates ? ", client certificate CNs" : "") + (anonymous ? ", anonymous allowed" : "")
        + ", " + rules.size() + " permission rules"
        + (tls.isEmpty() && !tokens.isEmpty() ? " (tokens travel in plaintext: use TLS beyond loopback)" : "");
    Principals principals = new Principals(rules); // one compiled set for both doors
    return new BrokerSecurity(tls, Optional.of(new AuthInterceptor(tokens, principals, certificates, anonymous)),
        Optional.of(new KafkaAuthenticator(tokens, principals, certificates, anonymous)),
        new HttpAuthenticator(tokens, principals, certificates, anonymous), summary);
  }

  public Optional<ServerTls> tls() {
    return tls;
  }

  /** The interceptor of the brook.v1 services and reflection, or empty when auth is off. */
  public Optional<ServerInterceptor> interceptor() {
    return auth.map(a -> a);
  }

  /** How the Kafka listener authenticates and authorizes (the same principals and rules), or empty when auth is off. */
  public Optional<KafkaAuthenticator> kafka() {
    return kafka;
  }

  /** How the HTTP relay authenticates (the same principals and rules); {@link HttpAuthenticator#OFF} with auth off. */
  public HttpAuthenticator http() {
    return http;
  }

  /**
   * Who may read /metrics and /stats: anyone with auth off; with it on, a caller a brook.v1 call
   * would authenticate (a known bearer token, a verified client certificate, or anyone when
   * anonymous callers are allowed). Monitoring needs no permission beyond that.
   */
  public boolean httpAllowed(String authorization, boolean clientCertificate) {
    return auth.map(a -> a.authenticates(authorization, clientCertificate)).orElse(true);
  }

  /** One line for the start log: TLS on/off and mTLS mode, auth on/off and counts (no secrets). */
  public String summary() {
    return summary;
  }
}
