package io.brook.broker.security;

import javax.net.ssl.SSLSession;

/**
 * Who an HTTP relay request is, from the same tokens, client certificates and permissions as gRPC's
 * {@link AuthInterceptor}: {@code Authorization: Bearer <token>}, else a verified client
 * certificate's CN, else {@code anonymous} when allowed. The refusals say what gRPC's say; nothing
 * here keeps or logs a token.
 */
public final class HttpAuthenticator {
  /** With auth off: everyone is let in and may do anything. */
  public static final HttpAuthenticator OFF = new HttpAuthenticator(null, null, false, false);
  private static final String BEARER = "Bearer ";

  /**
   * What became of a request's credentials.
   *
   * @param access what the principal may do; null with auth off (anything) or when refused
   * @param refusal why the request is refused (unauthenticated), or null
   */
  public record Outcome(Access access, String refusal) {}

  private static final Outcome EVERYONE = new Outcome(null, null);

  private final Tokens tokens;
  private final Principals principals;
  private final boolean certificates;
  private final boolean anonymous;

  HttpAuthenticator(Tokens tokens, Principals principals, boolean certificates, boolean anonymous) {
    this.tokens = tokens;
    this.principals = principals;
    this.certificates = certificates;
    this.anonymous = anonymous;
  }

  /**
   * @param authorization the request's Authorization header, or null
   * @param tls the connection's TLS session, or null for plaintext
   */
  public Outcome authenticate(String authorization, SSLSession tls) {
    if (tokens == null) {
      return EVERYONE;
    }
    String name;
    if (authorization != null) {
      if (authorization.length() <= BEARER.length()
          || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
        return new Outcome(null, "the authorization header must be 'Bearer <token>'");
      }
      name = tokens.principal(authorization.substring(BEARER.length()).strip());
      if (name == null) {
        return new Outcome(null, "unknown bearer token");
      }
    } else if (certificates && (name = ClientCertificates.commonName(tls)) != null) {
      // the client certificate's CN
    } else if (anonymous) {
      name = Principal.ANONYMOUS;
    } else {
      return new Outcome(null, "no bearer token or client certificate");
    }
    return new Outcome(new Access(principals.of(name)), null);
  }
}
