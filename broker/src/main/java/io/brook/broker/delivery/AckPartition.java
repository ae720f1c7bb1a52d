package io.brook.broker.delivery;

import io.brook.broker.topics.Partition;

/**
 * An ack group's state of one partition, as KIP-932 keeps a share partition's: {@code start} is the
 * lowest unsettled offset (the group's committed offset), {@code next} the first offset never
 * delivered, and between them a window with each offset's state (available, leased, settled), its
 * delivery attempts, its lease deadline (or, when handed back with a delay, when it is due again) and
 * its holder. The window is at most max.unsettled.per.partition offsets long, so a slow record holds
 * back at most that many after it (1: strict order). Not thread-safe: its group's monitor guards it.
 */
public final class AckPartition {
  private static final byte AVAILABLE = 0;
  private static final byte LEASED = 1;
  private static final byte SETTLED = 2;

  /** How an ack, nack or extension of one offset by one member turned out. */
  public enum Check { OK, NOT_DELIVERED, ALREADY_SETTLED, LEASE_EXPIRED, NOT_LEASED }

  private final Partition partition;
  private final int key;
  private long start;
  private long next;
  private int head;
  private byte[] state = new byte[16];
  private int[] attempts = new int[16];
  private long[] deadline = new long[16];
  private int[] bytes = new int[16];
  private AckMember[] holder = new AckMember[16];
  private int unsettled;
  private long deadLettered;
  private long redeliveries;
  private long deletedUnsettled;
  private boolean waiting;

  public AckPartition(Partition partition, int key, long start) {
    this.partition = partition;
    this.key = key;
    this.start = start;
    this.next = start;
  }

  public Partition partition() {
    return partition;
  }

  public int key() {
    return key;
  }

  public long start() {
    return start;
  }

  public long next() {
    return next;
  }

  public int unsettled() {
    return unsettled;
  }

  public long deadLettered() {
    return deadLettered;
  }

  public long redeliveries() {
    return redeliveries;
  }

  /** Records retention deleted before the group settled them (since the broker started). */
  public long deletedUnsettled() {
    return deletedUnsettled;
  }

  /** Whether a waiter for new records is registered on the partition. */
  public boolean waiting() {
    return waiting;
  }

  public void waiting(boolean w) {
    waiting = w;
  }

  private int size() {
    return (int) (next - start);
  }

  private int slot(long offset) {
    return (head + (int) (offset - start)) & (state.length - 1);
  }

  /** Offsets never delivered can be delivered while the window is shorter than the limit. */
  public boolean roomForNew(int maxUnsettled) {
    return size() < maxUnsettled;
  }

  /** Leases {@code offset}, which must be {@link #next()}, for its first delivery. */
  public int leaseNew(long offset, int recordBytes, AckMember m, long leaseDeadline) {
    if (offset != next) {
      throw new IllegalStateException("expected offset " + next + ", got " + offset);
    }
    grow();
    int s = slot(next);
    next++;
    attempts[s] = 0;
    unsettled++;
    return lease(s, recordBytes, m, leaseDeadline);
  }

  /** Leases an available offset again. */
  public int leaseAgain(long offset, int recordBytes, AckMember m, long leaseDeadline) {
    redeliveries++;
    return lease(slot(offset), recordBytes, m, leaseDeadline);
  }

  private int lease(int s, int recordBytes, AckMember m, long leaseDeadline) {
    state[s] = LEASED;
    deadline[s] = leaseDeadline;
    bytes[s] = recordBytes;
    holder[s] = m;
    m.leased(recordBytes);
    return ++attempts[s];
  }

  /** The first offset at or after {@code from} that is available and due by {@code now}, or -1. */
  public long nextDue(long from, long now) {
    for (long o = Math.max(from, start); o < next; o++) {
      int s = slot(o);
      if (state[s] == AVAILABLE && deadline[s] <= now) {
        return o;
      }
    }
    return -1;
  }

  /** Deliveries so far of an offset in the window. */
  public int attempts(long offset) {
    return attempts[slot(offset)];
  }

  /** Whether {@code m} may settle, hand back or extend {@code offset}, and if not, why. */
  public Check check(long offset, AckMember m) {
    if (offset < start) {
      return Check.ALREADY_SETTLED;
    }
    if (offset >= next) {
      return Check.NOT_DELIVERED;
    }
    int s = slot(offset);
    if (state[s] == SETTLED) {
      return Check.ALREADY_SETTLED;
    }
    if (holder[s] != m) {
      return Check.NOT_LEASED;
    }
    return state[s] == LEASED ? Check.OK : Check.LEASE_EXPIRED;
  }

  /** Settles an offset in the window (acked, or dead-lettered); the start advances past settled ones. */
  public void settle(long offset) {
    int s = slot(offset);
    if (state[s] == LEASED) {
      holder[s].released(bytes[s]);
    }
    state[s] = SETTLED;
    unsettled--;
    while (next > start && state[head] == SETTLED) {
      holder[head] = null;
      head = (head + 1) & (state.length - 1);
      start++;
    }
  }

  public void deadLettered(long offset) {
    deadLettered++;
    settle(offset);
  }

  /** Hands a leased offset back: due again at {@code dueMs}. */
  public void release(long offset, long dueMs) {
    int s = slot(offset);
    if (state[s] == LEASED) {
      holder[s].released(bytes[s]);
      state[s] = AVAILABLE;
    }
    deadline[s] = dueMs;
  }

  /**
   * Takes back the attempt of a delivery that may never have reached its member (its stream ended
   * before it outlived the delivery): the attempt does not count. The lease stays as it is: a member
   * that keeps its leases between streams still holds it, and one that does not hands it back as its
   * stream ends. Only when {@code m} still holds that very delivery; answers whether it did.
   */
  public boolean undeliver(long offset, AckMember m, int attempt) {
    if (offset < start || offset >= next) {
      return false;
    }
    int s = slot(offset);
    if (state[s] != LEASED || holder[s] != m || attempts[s] != attempt) {
      return false;
    }
    attempts[s]--;
    if (attempt > 1) {
      redeliveries--;
    }
    return true;
  }

  public void extend(long offset, long leaseDeadline) {
    deadline[slot(offset)] = leaseDeadline;
  }

  /** Hands back the leases that ran out by {@code now}; returns how many. */
  public int expire(long now) {
    int n = 0;
    for (long o = start; o < next; o++) {
      int s = slot(o);
      if (state[s] == LEASED && deadline[s] <= now) {
        release(o, now);
        n++;
      }
    }
    return n;
  }

  /** Hands back every lease of a member (its stream ended and it keeps no leases). */
  public void releaseAll(AckMember m, long now) {
    for (long o = start; o < next; o++) {
      int s = slot(o);
      if (state[s] == LEASED && holder[s] == m) {
        release(o, now);
      }
    }
  }

  /** The earliest time something here needs the ticker: a lease to expire or a record due again. */
  public long nextDeadline() {
    long min = Long.MAX_VALUE;
    for (long o = start; o < next; o++) {
      int s = slot(o);
      if (state[s] != SETTLED) {
        min = Math.min(min, deadline[s]);
      }
    }
    return min;
  }

  /** Drops the window and starts over at {@code offset} (a reset, or records deleted by retention). */
  public void restart(long offset) {
    for (long o = start; o < next; o++) {
      int s = slot(o);
      if (state[s] == LEASED) {
        holder[s].released(bytes[s]);
      }
      holder[s] = null;
    }
    start = offset;
    next = offset;
    head = 0;
    unsettled = 0;
  }

  /**
   * Retention deleted every offset below {@code logStart}: the window's unsettled offsets there are
   * settled (their leases handed back) and added to {@code settled}, and the offsets never delivered
   * are passed over. Counts both as deleted before being settled.
   *
   * @return whether the start moved past offsets never delivered (journal it as a new start)
   */
  public boolean dropBelow(long logStart, Ranges settled) {
    long dropped = 0;
    for (long o = start; o < Math.min(logStart, next); o++) {
      if (state[slot(o)] != SETTLED) {
        settle(o);
        settled.add(o);
        dropped++;
      }
    }
    boolean skipped = logStart > next;
    if (skipped) {
      dropped += logStart - next;
      restart(logStart);
    }
    deletedUnsettled += dropped;
    return skipped;
  }

  // --- replay of the journal, and the snapshot that stands for it

  /** Replays a delivery: each offset's attempts grow by one; the window grows to hold it. */
  public void replayDelivered(long first, long last) {
    for (long o = Math.max(first, start); o <= last; o++) {
      while (next <= o) {
        grow();
        int s = slot(next);
        state[s] = AVAILABLE;
        attempts[s] = 0;
        deadline[s] = 0;
        holder[s] = null;
        next++;
        unsettled++;
      }
      attempts[slot(o)]++;
    }
  }

  /** Replays a delivery taken back: each offset's attempts shrink by one. */
  public void replayUndelivered(long first, long last) {
    for (long o = Math.max(first, start); o <= Math.min(last, next - 1); o++) {
      int s = slot(o);
      if (state[s] != SETTLED && attempts[s] > 0) {
        attempts[s]--;
      }
    }
  }

  public void replaySettled(long first, long last) {
    for (long o = Math.max(first, start); o <= Math.min(last, next - 1); o++) {
      if (state[slot(o)] != SETTLED) {
        settle(o);
      }
    }
  }

  /** Per offset of the window: attempts, or -(attempts + 1) when settled. */
  public int[] snapshot() {
    int[] out = new int[size()];
    for (int i = 0; i < out.length; i++) {
      int s = slot(start + i);
      out[i] = state[s] == SETTLED ? -(attempts[s] + 1) : attempts[s];
    }
    return out;
  }

  /** Rebuilds the window from a snapshot: {@code snapshot} holds one entry per offset of [start, next). */
  public void replayWindow(long windowStart, long windowNext, int[] snapshot) {
    if (windowNext - windowStart != snapshot.length) {
      throw new IllegalArgumentException("a window of " + (windowNext - windowStart) + " offsets with "
          + snapshot.length + " entries");
    }
    restart(windowStart);
    for (int i = 0; i < snapshot.length; i++) {
      grow();
      int s = slot(next);
      state[s] = snapshot[i] < 0 ? SETTLED : AVAILABLE;
      attempts[s] = snapshot[i] < 0 ? -snapshot[i] - 1 : snapshot[i];
      deadline[s] = 0;
      next++;
      if (state[s] != SETTLED) {
        unsettled++;
      }
    }
  }

  private void grow() {
    if (size() < state.length) {
      return;
    }
    int n = state.length * 2;
    byte[] st = new byte[n];
    int[] at = new int[n];
    long[] dl = new long[n];
    int[] by = new int[n];
    AckMember[] ho = new AckMember[n];
    for (int i = 0; i < size(); i++) {
      int s = slot(start + i);
      st[i] = state[s];
      at[i] = attempts[s];
      dl[i] = deadline[s];
      by[i] = bytes[s];
      ho[i] = holder[s];
    }
    state = st;
    attempts = at;
    deadline = dl;
    bytes = by;
    holder = ho;
    head = 0;
  }

  @Override
  public String toString() {
    return partition.name() + "[start=" + start + ", next=" + next + ", unsettled=" + unsettled + "]";
  }
}
