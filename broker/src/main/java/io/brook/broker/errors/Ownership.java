package io.brook.broker.errors;

/**
 * Group members and idempotent producer ids belong to the principal that made them (with auth on):
 * only that principal may act as them. A null caller is a broker with auth off (everyone may, as
 * before); a null owner is something made with auth off, which any caller may use.
 */
public final class Ownership {
  private Ownership() {}

  public static boolean allows(String owner, String caller) {
    return caller == null || owner == null || owner.equals(caller);
  }

  /**
   * @param what what the caller named, as "member 'w1' of group 'work'"
   * @throws BrokerException NOT_OWNER (PERMISSION_DENIED) when another principal made it
   */
  public static void check(String owner, String caller, String what) {
    if (!allows(owner, caller)) {
      // The owner is not named: one principal learns nothing of another's name.
      throw new BrokerException(BrokerError.NOT_OWNER, "principal " + caller + " may not act as " + what
          + ": another principal made it");
    }
  }
}
