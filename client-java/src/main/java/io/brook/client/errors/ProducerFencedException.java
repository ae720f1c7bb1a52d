package io.brook.client.errors;

/** A newer instance of this producer id took over; this producer can send no more. */
public class ProducerFencedException extends BrookException {
  private static final long serialVersionUID = 1L;

  public ProducerFencedException(String reason, String message) {
    super(reason, message);
  }

  public ProducerFencedException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
