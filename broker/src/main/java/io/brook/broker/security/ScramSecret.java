package io.brook.broker.security;

/**
 * What a SCRAM server keeps of a password (RFC 5802 §3): never the password, only what verifies a
 * client's proof and signs the server's answer.
 *
 * @param mechanism "SCRAM-SHA-256" or "SCRAM-SHA-512"
 */
public record ScramSecret(String mechanism, byte[] salt, byte[] storedKey, byte[] serverKey, int iterations) {}
