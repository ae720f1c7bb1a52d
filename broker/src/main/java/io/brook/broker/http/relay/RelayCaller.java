package io.brook.broker.http.relay;

import io.brook.broker.security.Access;
import java.util.function.Predicate;

/**
 * Who sent a relay request and what they may do: the same principal and permissions a gRPC call with
 * the same credentials has. With auth off there is no principal and everything is allowed.
 */
public final class RelayCaller {
  /** With auth off. */
  public static final RelayCaller ANYONE = new RelayCaller(null);

  private final Access access;

  public RelayCaller(Access access) {
    this.access = access;
  }

  /** The principal's name (the owner of what it makes), or null with auth off. */
  public String principal() {
    return access == null ? null : access.principal();
  }

  /**
   * Refuses the request (403 PERMISSION_DENIED, gRPC's message) unless {@code rule} allows it.
   *
   * @param missing what is lacking, in gRPC's words: {@code "produce on topic orders"}
   */
  public void require(Predicate<Access> rule, String missing) {
    if (access != null && !rule.test(access)) {
      throw RelayException.permissionDenied(access.principal(), missing);
    }
  }

  public void requireProduce(String topic) {
    require(a -> a.produce(topic), "produce on topic " + topic);
  }

  public void requireConsume(String topic) {
    require(a -> a.consume(topic), "consume on topic " + topic);
  }

  public void requireConsumeGroup(String group) {
    require(a -> a.consumeGroup(group), "consume on group " + group);
  }
}
