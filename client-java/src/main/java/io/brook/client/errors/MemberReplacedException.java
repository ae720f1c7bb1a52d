package io.brook.client.errors;

/**
 * A newer consumer took this member's place: in ack mode one with the same client id (and its
 * leases); in an offset-mode group a static member's newer consumer with the same {@code
 * group.instance.id} (Kafka's FencedInstanceIdException), after which the fenced consumer's polls and
 * commits throw this for good: close it.
 */
public class MemberReplacedException extends BrookException {
  private static final long serialVersionUID = 1L;

  public MemberReplacedException(String reason, String message) {
    super(reason, message);
  }

  public MemberReplacedException(String reason, String message, Throwable cause) {
    super(reason, message, cause);
  }
}
