package io.brook.broker.outbound;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bytes of answers the broker has handed to its network layers (gRPC, HTTP) and that are not yet
 * written to a socket: the memory a client that stops reading makes the broker hold. Bounded
 * broker-wide ({@code limit}) and per client connection ({@code clientLimit}), so one client that
 * reads nothing cannot take the memory the others need. A sender reserves before it reads what it
 * will send and releases once its transport wrote it; one that does not fit waits (its client is
 * slowed, never failed), and waiters are served in turn across clients, in order within a client.
 * A sender with nothing reserved may always take one answer, however large, so that no answer is
 * too large to ever go out.
 *
 * <p>Callbacks given to {@link Account#reserve} run outside this object's monitor, on whichever
 * thread released the memory: they must only hand work to an executor.
 */
public final class OutboundMemory {
  private final long limit;
  private final long clientLimit;
  private long held;
  /** Accounts with waiters, served round robin. */
  private final ArrayDeque<Account> waiting = new ArrayDeque<>();
  /** The head waiter of some account did not fit under the broker-wide limit: newcomers queue behind. */
  private boolean blocked;
  private final AtomicLong waits = new AtomicLong();
  private int accounts;

  public OutboundMemory(long limit, long clientLimit) {
    if (limit <= 0 || clientLimit <= 0) {
      throw new IllegalArgumentException("limits must be > 0");
    }
    this.limit = limit;
    this.clientLimit = Math.min(clientLimit, limit);
  }

  /** A client connection's account; {@link Account#close()} it when the connection ends. */
  public synchronized Account open() {
    accounts++;
    return new Account();
  }

  public long limit() {
    return limit;
  }

  public long clientLimit() {
    return clientLimit;
  }

  /** Bytes reserved now, over all clients. */
  public synchronized long held() {
    return held;
  }

  /** Senders waiting for memory now. */
  public synchronized int waiting() {
    int n = 0;
    for (Account a : waiting) {
      n += a.waiters.size();
    }
    return n;
  }

  /** How many times a sender had to wait for memory (since the broker started). */
  public long waits() {
    return waits.get();
  }

  /** Client accounts open now. */
  public synchronized int accounts() {
    return accounts;
  }

  private boolean fits(Account a, long bytes) {
    return (a.held == 0 || a.held + bytes <= clientLimit) && fitsBroker(bytes);
  }

  private boolean fitsBroker(long bytes) {
    return held == 0 || held + bytes <= limit;
  }

  private void take(Account a, long bytes) {
    a.held += bytes;
    held += bytes;
  }

  /** Grants what now fits, round robin over the waiting accounts; returns the callbacks to run. */
  private List<Runnable> grant() {
    List<Runnable> granted = null;
    blocked = false;
    boolean progress = true;
    while (progress && !waiting.isEmpty()) {
      progress = false;
      for (int i = waiting.size(); i > 0 && !waiting.isEmpty(); i--) {
        Account a = waiting.pollFirst();
        Waiter w = a.waiters.peekFirst();
        if (!fitsBroker(w.bytes)) {
          waiting.addFirst(a);
          blocked = true;
          return granted == null ? List.of() : granted;
        }
        if (fits(a, w.bytes)) {
          a.waiters.pollFirst();
          take(a, w.bytes);
          w.granted = true;
          if (granted == null) {
            granted = new ArrayList<>();
          }
          granted.add(w.callback);
          progress = true;
        }
        if (!a.waiters.isEmpty()) {
          waiting.addLast(a); // its turn comes again after every other waiting client's
        }
      }
    }
    return granted == null ? List.of() : granted;
  }

  /** Runs grants on the releasing thread; one that fails (its executor stopped) must not stop the others. */
  private static void run(List<Runnable> callbacks) {
    for (Runnable r : callbacks) {
      try {
        r.run();
      } catch (RuntimeException e) {
        org.slf4j.LoggerFactory.getLogger(OutboundMemory.class).debug("A grant of outbound memory failed: {}",
            e.toString());
      }
    }
  }

  /** A sender's place in the queue; {@link #cancel()} it when the sender goes away first. */
  public final class Waiter {
    private final Account account;
    private final long bytes;
    private final Runnable callback;
    private boolean granted;

    private Waiter(Account account, long bytes, Runnable callback) {
      this.account = account;
      this.bytes = bytes;
      this.callback = callback;
    }

    /** Leaves the queue; true when it had not been granted (else the bytes are reserved: release them). */
    public boolean cancel() {
      List<Runnable> granted;
      synchronized (OutboundMemory.this) {
        if (this.granted) {
          return false;
        }
        account.waiters.remove(this);
        if (account.waiters.isEmpty()) {
          waiting.remove(account);
        }
        granted = grant(); // the waiter may have held others back
      }
      run(granted);
      return true;
    }
  }

  /** One client connection's share. Thread-safe. */
  public final class Account {
    private long held;
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private boolean closed;

    private Account() {}

    /** Reserves {@code bytes} now when it fits and nobody waits ahead; false otherwise (nothing reserved). */
    public boolean tryReserve(long bytes) {
      synchronized (OutboundMemory.this) {
        if (closed || !waiters.isEmpty() || blocked || !fits(this, bytes)) {
          return false;
        }
        take(this, bytes);
        return true;
      }
    }

    /**
     * Reserves {@code bytes} now (returns null) or as soon as they fit: then {@code granted} runs, on the
     * releasing thread, with the bytes reserved. The returned waiter cancels the wait.
     */
    public Waiter reserve(long bytes, Runnable granted) {
      synchronized (OutboundMemory.this) {
        if (closed) {
          return new Waiter(this, bytes, granted); // never granted: the connection is gone
        }
        if (waiters.isEmpty() && !blocked && fits(this, bytes)) {
          take(this, bytes);
          return null;
        }
        Waiter w = new Waiter(this, bytes, granted);
        if (waiters.isEmpty()) {
          waiting.addLast(this);
          blocked |= !fitsBroker(bytes); // smaller ones must not overtake it
        }
        waiters.addLast(w);
        waits.incrementAndGet();
        return w;
      }
    }

    /** Counts bytes that go out whatever the limits say (an answer already owed); may exceed them. */
    public void force(long bytes) {
      synchronized (OutboundMemory.this) {
        if (!closed) {
          take(this, bytes);
        }
      }
    }

    /**
     * Makes a reservation of {@code reserved} bytes one of {@code size}: an answer is reserved for
     * before it is built and counted at its real size once built (more than reserved is forced).
     */
    public void resize(long reserved, long size) {
      if (size > reserved) {
        force(size - reserved);
      } else {
        release(reserved - size);
      }
    }

    /** Gives back bytes whose answer was written (or dropped). */
    public void release(long bytes) {
      if (bytes <= 0) {
        return;
      }
      List<Runnable> granted;
      synchronized (OutboundMemory.this) {
        if (closed) {
          return;
        }
        long back = Math.min(bytes, held);
        held -= back;
        OutboundMemory.this.held -= back;
        granted = waiting.isEmpty() ? List.of() : grant();
      }
      run(granted);
    }

    /**
     * The most this client holds before its senders wait (outbound.client.max.bytes, at most the broker's
     * bound): a sender that sizes its answer to what it may send sizes it to this.
     */
    public long share() {
      return clientLimit;
    }

    /** Bytes this client holds now. */
    public long held() {
      synchronized (OutboundMemory.this) {
        return held;
      }
    }

    /** The connection ended: everything it held is free, its waiters are dropped (never called). */
    public void close() {
      List<Runnable> granted;
      synchronized (OutboundMemory.this) {
        if (closed) {
          return;
        }
        closed = true;
        accounts--;
        OutboundMemory.this.held -= held;
        held = 0;
        waiters.clear();
        waiting.remove(this);
        granted = grant();
      }
      run(granted);
    }
  }
}
