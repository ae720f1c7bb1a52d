package io.brook.broker.security;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * SCRAM credentials (RFC 5802 §3) of a token, made once when the tokens are loaded: SaltedPassword =
 * PBKDF2 (Hi) of the token with a random salt, StoredKey = H(HMAC(SaltedPassword, "Client Key")),
 * ServerKey = HMAC(SaltedPassword, "Server Key"). The salt is new at every broker start; clients do
 * not keep it.
 */
final class ScramSecrets {
  /** Kafka's minimum for SCRAM (ScramMechanism.minIterations), and RFC 7677's recommendation. */
  static final int ITERATIONS = 4096;
  static final List<String> MECHANISMS = List.of("SCRAM-SHA-256", "SCRAM-SHA-512");
  private static final SecureRandom RANDOM = new SecureRandom();
  /** Keys the salts of users without a token, for this run. */
  private static final byte[] FAKE_SALT_KEY = randomBytes(32);

  private ScramSecrets() {}

  static ScramSecret of(String mechanism, String password) {
    byte[] salt = new byte[32];
    RANDOM.nextBytes(salt);
    return of(mechanism, password, salt, ITERATIONS);
  }

  static ScramSecret of(String mechanism, String password, byte[] salt, int iterations) {
    String bits = bits(mechanism);
    try {
      // Hi() is PBKDF2 with the HMAC as PRF and the hash's length as output; the JDK encodes the chars as UTF-8.
      byte[] salted = SecretKeyFactory.getInstance("PBKDF2WithHmacSHA" + bits).generateSecret(
          new PBEKeySpec(password.toCharArray(), salt, iterations, Integer.parseInt(bits))).getEncoded();
      byte[] clientKey = hmac(bits, salted, "Client Key");
      byte[] storedKey = MessageDigest.getInstance("SHA-" + bits).digest(clientKey);
      return new ScramSecret(mechanism, salt.clone(), storedKey, hmac(bits, salted, "Server Key"), iterations);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK has PBKDF2 and HMAC with SHA-256 and SHA-512", e);
    }
  }

  /** See {@link KafkaAuthenticator#unmatchable}: random keys, a salt keyed by the name and this run's secret. */
  static ScramSecret unmatchable(String mechanism, String user) {
    String bits = bits(mechanism);
    try {
      byte[] salt = java.util.Arrays.copyOf(hmac("256", FAKE_SALT_KEY, user), 32);
      byte[] storedKey = new byte[Integer.parseInt(bits) / 8];
      byte[] serverKey = new byte[storedKey.length];
      RANDOM.nextBytes(storedKey);
      RANDOM.nextBytes(serverKey);
      return new ScramSecret(mechanism, salt, storedKey, serverKey, ITERATIONS);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JDK has HMAC with SHA-256", e);
    }
  }

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    RANDOM.nextBytes(b);
    return b;
  }

  private static String bits(String mechanism) {
    return switch (mechanism) {
      case "SCRAM-SHA-256" -> "256";
      case "SCRAM-SHA-512" -> "512";
      default -> throw new IllegalArgumentException("not a SCRAM mechanism: " + mechanism);
    };
  }

  private static byte[] hmac(String bits, byte[] key, String text) throws GeneralSecurityException {
    Mac mac = Mac.getInstance("HmacSHA" + bits);
    mac.init(new SecretKeySpec(key, "HmacSHA" + bits));
    return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
  }
}
