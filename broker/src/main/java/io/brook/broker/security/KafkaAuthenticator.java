package io.brook.broker.security;

import java.util.List;
import javax.net.ssl.SSLSession;

/**
 * Who a Kafka client is, from the same tokens, client certificates and permissions as gRPC's
 * {@link AuthInterceptor}: SASL/PLAIN takes the principal as user name and its token as password;
 * SASL/SCRAM-SHA-256/512 check a proof against credentials derived from the principal's token at
 * start; a verified client certificate's CN, or {@code anonymous} when allowed, serve a client that
 * does not authenticate with SASL. Nothing here keeps or logs a token.
 */
public final class KafkaAuthenticator {
  /** The SASL mechanisms served, in the order SaslHandshake lists them. */
  public static final List<String> MECHANISMS = List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");

  private final Tokens tokens;
  private final boolean certificates;
  private final boolean anonymous;
  private final Principals principals;

  KafkaAuthenticator(Tokens tokens, Principals principals, boolean certificates, boolean anonymous) {
    this.tokens = tokens;
    this.principals = principals;
    this.certificates = certificates;
    this.anonymous = anonymous;
  }

  public List<String> mechanisms() {
    return MECHANISMS;
  }

  /**
   * The principal when {@code password} is a token of principal {@code user}, else null; every token
   * is compared (as a bearer token is), so an unknown user and a wrong password take the same path.
   */
  public String plain(String user, String password) {
    String owner = tokens.principal(password);
    return owner != null && owner.equals(user) ? owner : null;
  }

  /** The SCRAM credentials of a principal with a token for {@code mechanism} (SCRAM-SHA-256/512), or null. */
  public ScramSecret scram(String mechanism, String user) {
    return tokens.scram(user, mechanism);
  }

  /**
   * A SCRAM credential no proof matches, for a user without a token: it is then refused at the same
   * step, with the same message, as a wrong password. Its salt is the same for the same name during
   * a broker's run, as a real user's is, so asking twice does not tell them apart either.
   */
  public ScramSecret unmatchable(String mechanism, String user) {
    return ScramSecrets.unmatchable(mechanism, user);
  }

  /** The principal of a client that did not authenticate with SASL: its certificate's CN, else anonymous, else null. */
  public String withoutSasl(SSLSession tls) {
    String cn = certificates ? ClientCertificates.commonName(tls) : null;
    if (cn != null) {
      return cn;
    }
    return anonymous ? Principal.ANONYMOUS : null;
  }

  /** What a principal may do (compiled once per principal). */
  public Access access(String principal) {
    return new Access(principals.of(principal));
  }
}
