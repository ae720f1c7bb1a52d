package io.brook.client.errors;

/**
 * Another thread called {@code wakeup()}: the blocking call on the consumer's thread returned early.
 * The consumer stays usable (typically the application closes it next).
 */
public class WakeupException extends BrookException {
  private static final long serialVersionUID = 1L;

  public WakeupException() {
    super("WAKEUP", "woken up by wakeup()");
  }
}
