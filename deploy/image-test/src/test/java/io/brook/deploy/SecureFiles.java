package io.brook.deploy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * What a chart with TLS and auth on mounts into the broker's pod, made at test time in one
 * directory: a CA and a server certificate for 127.0.0.1 (openssl, EC P-256), a tokens file, a
 * permissions file, and the test client's token file. Files are world-readable, as a Secret volume's
 * default mode makes them, so the container's uid 10001 can read them.
 */
final class SecureFiles {
  static final String TOKEN = "helm-test-token-0123456789";

  final Path dir;

  SecureFiles(Path dir) throws IOException, InterruptedException {
    this.dir = dir;
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=brook-image-test-ca",
        "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
    Files.writeString(dir.resolve("tls.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "tls.key",
        "-out", "tls.csr", "-subj", "/CN=brook");
    openssl("x509", "-req", "-in", "tls.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
        "-out", "tls.crt", "-extfile", "tls.ext");
    Files.writeString(dir.resolve("tokens"), "helm-test=" + TOKEN + "\n");
    Files.writeString(dir.resolve("permissions"), "helm-test * topic:helm-test\n");
    Files.writeString(dir.resolve("token"), TOKEN + "\n");
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) {
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
      }
    }
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  /** A JDK SSLContext trusting the CA, for the HTTPS port. */
  SSLContext trustingContext() {
    return trusting(dir.resolve("ca.crt"));
  }

  /** A JDK SSLContext trusting the CA certificate in a PEM file. */
  static SSLContext trusting(Path caFile) {
    try (var in = Files.newInputStream(caFile)) {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot trust " + caFile, e);
    }
  }

  private void openssl(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("openssl " + String.join(" ", args) + " failed:\n" + out);
    }
  }
}
