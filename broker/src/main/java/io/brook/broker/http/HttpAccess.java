package io.brook.broker.http;

/**
 * Who may read /metrics and /stats. It gets the request's Authorization header (null when absent)
 * and whether the client showed a certificate the TLS handshake verified; a no is answered 401.
 * /healthz and /readyz never ask (probes carry no credentials).
 */
@FunctionalInterface
public interface HttpAccess {
  HttpAccess ALLOW_ALL = (authorization, clientCertificate) -> true;

  boolean allowed(String authorizationHeaderOrNull, boolean clientCertificate);
}
