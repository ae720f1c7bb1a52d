package io.brook.broker.groups;

/** A Kafka-protocol member's call refused with {@link #fault()}; the message says why, for the client's log. */
public final class MemberFaultException extends RuntimeException {
  private final MemberFault fault;

  public MemberFaultException(MemberFault fault, String message) {
    super(message, null, false, false); // an expected refusal: no stack trace
    this.fault = fault;
  }

  public MemberFault fault() {
    return fault;
  }
}
