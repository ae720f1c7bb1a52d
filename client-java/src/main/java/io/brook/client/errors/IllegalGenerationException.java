package io.brook.client.errors;

/** The member missed a rebalance and is fenced: it must join again. */
public class IllegalGenerationException extends BrookException {
  private static final long serialVersionUID = 1L;

  public IllegalGenerationException(String reason, String message) {
    super(reason, message);
  }

  public IllegalGenerationException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
