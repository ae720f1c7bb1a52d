package io.brook.broker.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Certificates made at test time with the openssl command (EC P-256, valid two days): a CA, a
 * server certificate for 127.0.0.1 and localhost, client certificates whose CN is a principal, and
 * a second CA nobody trusts. Keys are unencrypted PKCS#8 PEM unless asked otherwise.
 */
final class TestCerts {
  record Pair(Path cert, Path key) {}

  private final Path dir;
  final Path caCert;
  final Path caKey;
  final Pair server;

  private TestCerts(Path dir) throws IOException, InterruptedException {
    this.dir = Files.createDirectories(dir);
    caKey = dir.resolve("ca.key");
    caCert = dir.resolve("ca.pem");
    selfSigned("brook-test-ca", caCert, caKey);
    server = signed("localhost", "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
  }

  static TestCerts create(Path dir) throws IOException, InterruptedException {
    return new TestCerts(dir);
  }

  /** A client certificate signed by the CA, its CN the principal. */
  Pair client(String cn) throws IOException, InterruptedException {
    return signed(cn, "extendedKeyUsage=clientAuth\n");
  }

  /** A CA of its own (and a server certificate it signed): what a client must not trust. */
  Path otherCa() throws IOException, InterruptedException {
    Path cert = dir.resolve("other-ca.pem");
    selfSigned("other-ca", cert, dir.resolve("other-ca.key"));
    return cert;
  }

  /** A JDK SSLContext trusting the CA, for java.net.http clients of the HTTPS port. */
  javax.net.ssl.SSLContext trustingContext() throws java.security.GeneralSecurityException, IOException {
    java.security.KeyStore trust = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
    trust.load(null, null);
    try (var in = Files.newInputStream(caCert)) {
      trust.setCertificateEntry("ca", java.security.cert.CertificateFactory.getInstance("X.509")
          .generateCertificate(in));
    }
    javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
        javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }

  /** The server key encrypted with the password (PKCS#8 PBES2, openssl's default). */
  Path encryptedServerKey(String password) throws IOException, InterruptedException {
    Path out = dir.resolve("server-encrypted.key");
    openssl("pkcs8", "-topk8", "-in", server.key().toString(), "-out", out.toString(), "-passout", "pass:" + password);
    return out;
  }

  private void selfSigned(String cn, Path cert, Path key) throws IOException, InterruptedException {
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", key.toString(), "-out", cert.toString(), "-days", "2", "-subj", "/CN=" + cn,
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
  }

  private Pair signed(String cn, String extensions) throws IOException, InterruptedException {
    Path key = dir.resolve(cn + ".key");
    Path csr = dir.resolve(cn + ".csr");
    Path cert = dir.resolve(cn + ".pem");
    Path ext = Files.writeString(dir.resolve(cn + ".ext"), extensions);
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key.toString(),
        "-out", csr.toString(), "-subj", "/O=brook tests/CN=" + cn);
    openssl("x509", "-req", "-in", csr.toString(), "-CA", caCert.toString(), "-CAkey", caKey.toString(),
        "-set_serial", Long.toString(System.nanoTime() & Long.MAX_VALUE), "-days", "2", "-out", cert.toString(),
        "-extfile", ext.toString());
    return new Pair(cert, key);
  }

  private void openssl(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("openssl " + String.join(" ", args) + " failed:\n" + out);
    }
  }
}
