package io.brook.broker.config;

/** A configuration the broker refuses to start with; the message names the key and the source. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }
}
