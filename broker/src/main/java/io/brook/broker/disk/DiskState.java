package io.brook.broker.disk;

/** Where free space stands against the two limits. */
public enum DiskState {
  /** At or above the produce threshold: every write goes on. */
  OK,
  /** Under the produce threshold: produce is refused; metadata writes use the headroom. */
  PRODUCE_REFUSED,
  /** Under the headroom: every write that could grow a file is refused; reads go on. */
  FULL;

  /** Whether a write of this kind may go on in this state. */
  public boolean allows(DiskWrite w) {
    return this == OK || (this == PRODUCE_REFUSED && w.metadata());
  }
}
