package io.brook.broker.security;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/** The principal a verified client certificate names: its subject CN, on gRPC and Kafka alike. */
final class ClientCertificates {
  private ClientCertificates() {}

  /** The subject CN of the session's verified client certificate, or null (no session, no certificate, no CN). */
  static String commonName(SSLSession session) {
    if (session == null) {
      return null;
    }
    try {
      Certificate[] chain = session.getPeerCertificates();
      if (chain.length == 0 || !(chain[0] instanceof X509Certificate cert)) {
        return null;
      }
      String cn = null;
      for (Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          cn = String.valueOf(rdn.getValue()); // the last CN is the most specific
        }
      }
      return cn == null || cn.isEmpty() ? null : cn;
    } catch (SSLPeerUnverifiedException | InvalidNameException e) {
      return null; // no (usable) certificate: a token or anonymous may still do
    }
  }
}
