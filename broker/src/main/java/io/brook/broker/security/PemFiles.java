package io.brook.broker.security;

import io.brook.broker.config.ConfigException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Reads the PEM files of the TLS settings and checks them before Netty sees them, so a bad file
 * refuses the start with one line naming the key and the file instead of a stack trace.
 */
final class PemFiles {
  private static final Pattern KEY = Pattern.compile(
      "-----BEGIN (ENCRYPTED )?PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END (ENCRYPTED )?PRIVATE KEY-----");
  private static final Pattern OTHER_KEY = Pattern.compile("-----BEGIN ([A-Z ]*)PRIVATE KEY-----");

  private PemFiles() {}

  /** The certificates of a PEM file: at least one, else a ConfigException naming key and file. */
  static List<X509Certificate> certificates(String key, Path file) {
    byte[] bytes = read(key, file);
    try {
      List<X509Certificate> certs = new ArrayList<>();
      for (var c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(bytes))) {
        certs.add((X509Certificate) c);
      }
      if (!certs.isEmpty()) {
        return certs;
      }
    } catch (CertificateException | RuntimeException e) {
      // answered below: the file is not what the key needs
    }
    throw new ConfigException(key + ": " + file + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
  }

  /** The private key of a PEM PKCS#8 file, decrypted with the password when it is encrypted. */
  static PrivateKey privateKey(String key, Path file, String password) {
    String text = new String(read(key, file), StandardCharsets.US_ASCII);
    Matcher m = KEY.matcher(text);
    if (!m.find()) {
      Matcher other = OTHER_KEY.matcher(text);
      throw new ConfigException(key + ": " + file + (other.find()
          ? " holds a " + other.group(1).trim() + " key; convert it to PKCS#8 (openssl pkcs8 -topk8)"
          : " holds no PEM private key (-----BEGIN PRIVATE KEY-----)"));
    }
    byte[] der;
    try {
      der = Base64.getMimeDecoder().decode(m.group(2));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(key + ": " + file + " holds a private key that is not valid base64");
    }
    boolean encrypted = m.group(1) != null;
    if (encrypted && password.isEmpty()) {
      throw new ConfigException(key + ": " + file + " is encrypted and tls.key.password is empty");
    }
    if (!encrypted && !password.isEmpty()) {
      throw new ConfigException(key + ": " + file + " is not encrypted but tls.key.password is set");
    }
    PKCS8EncodedKeySpec spec;
    try {
      spec = encrypted ? decrypt(der, password) : new PKCS8EncodedKeySpec(der);
    } catch (GeneralSecurityException | IOException e) {
      throw new ConfigException(key + ": cannot decrypt " + file + " with tls.key.password (" + e.getMessage() + ")");
    }
    for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448", "DSA")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException e) {
        // try the next key type
      }
    }
    throw new ConfigException(key + ": " + file + " holds a private key of an unsupported type (RSA, EC, Ed25519)");
  }

  /** PKCS#8 PBES2 as openssl writes it (the algorithm is in the parameters, as Netty reads it). */
  private static PKCS8EncodedKeySpec decrypt(byte[] der, String password) throws GeneralSecurityException,
      IOException {
    EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
    String algorithm = info.getAlgName();
    if ("PBES2".equals(algorithm) || "1.2.840.113549.1.5.13".equals(algorithm)) {
      algorithm = info.getAlgParameters().toString();
    }
    Cipher cipher = Cipher.getInstance(algorithm);
    cipher.init(Cipher.DECRYPT_MODE,
        SecretKeyFactory.getInstance(algorithm).generateSecret(new PBEKeySpec(password.toCharArray())),
        info.getAlgParameters());
    return info.getKeySpec(cipher);
  }

  /** Refuses a key that does not belong to the certificate: it signs, the certificate's key verifies. */
  static void checkPair(PrivateKey key, X509Certificate cert, Path keyFile, Path certFile) {
    String algorithm = switch (key.getAlgorithm()) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      case "DSA" -> "SHA256withDSA";
      default -> key.getAlgorithm(); // Ed25519, Ed448
    };
    byte[] probe = "brook".getBytes(StandardCharsets.US_ASCII);
    try {
      Signature sign = Signature.getInstance(algorithm);
      sign.initSign(key);
      sign.update(probe);
      byte[] signature = sign.sign();
      Signature verify = Signature.getInstance(algorithm);
      verify.initVerify(cert.getPublicKey());
      verify.update(probe);
      if (verify.verify(signature)) {
        return;
      }
    } catch (GeneralSecurityException e) {
      // a key of another type than the certificate's: the same answer
    }
    throw new ConfigException("tls.key.file: the key in " + keyFile + " does not match the certificate in "
        + certFile + " (tls.cert.file)");
  }

  private static byte[] read(String key, Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new ConfigException(key + ": " + file + " does not exist");
    } catch (IOException e) {
      throw new ConfigException(key + ": cannot read " + file + " (" + e.getMessage() + ")");
    }
  }
}
