package io.brook.client.errors;

/** A client option is invalid; the message lists every invalid option. */
public class ConfigException extends BrookException {
  private static final long serialVersionUID = 1L;

  public ConfigException(String reason, String message) {
    super(reason, message);
  }

  public ConfigException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
