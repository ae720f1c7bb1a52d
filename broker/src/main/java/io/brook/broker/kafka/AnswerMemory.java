package io.brook.broker.kafka;

import io.brook.broker.outbound.OutboundMemory;
import java.util.concurrent.RejectedExecutionException;

/**
 * The outbound memory one request's answer holds on its connection's account, from before the handler
 * reads what it will answer (a Fetch reserves) until the listener wrote the answer to the socket. The
 * listener counts every answer at its encoded size ({@link #resize}) and gives it back once written
 * ({@link #giveBack}), so a connection whose client does not read holds at most its share
 * (outbound.client.max.bytes) and all connections, Kafka and gRPC, at most outbound.max.bytes. Thread-safe.
 */
public final class AnswerMemory {
  private final ConnectionScope connection;
  /** Guarded by this. */
  private long held;
  private OutboundMemory.Waiter waiter;

  public AnswerMemory(ConnectionScope connection) {
    this.connection = connection;
  }

  /**
   * Reserves {@code bytes} now (true), or as soon as they fit after what the connection's earlier
   * requests hold (false: {@code granted} then runs on the connection's executor, with the bytes held).
   * Only a request's first reservation may wait: the connection's requests reserve in request order,
   * so what a waiting one waits for is held by answers written before its own.
   */
  public boolean reserve(long bytes, Runnable granted) {
    OutboundMemory.Waiter w = connection.memory().reserve(bytes, () -> grant(bytes, granted));
    synchronized (this) {
      if (w == null) {
        held += bytes;
      } else {
        waiter = w;
      }
    }
    return w == null;
  }

  private void grant(long bytes, Runnable granted) {
    synchronized (this) {
      waiter = null;
      held += bytes;
    }
    try {
      connection.executor().execute(granted);
    } catch (RejectedExecutionException stopping) { // the broker stops: the connection closes with it
      giveBack();
    }
  }

  /**
   * Reserves {@code bytes} if they fit now, never waiting: for a request that reserves again after it
   * gave its memory back (a long poll), since later requests of its connection may hold memory by then
   * that is only given back once its own answer is written.
   */
  public boolean tryReserve(long bytes) {
    if (!connection.memory().tryReserve(bytes)) {
      return false;
    }
    synchronized (this) {
      held += bytes;
    }
    return true;
  }

  /** Makes what the answer holds {@code bytes}: more than reserved is counted at once, whatever the limits. */
  public void resize(long bytes) {
    long was;
    synchronized (this) {
      was = held;
      held = bytes;
    }
    connection.memory().resize(was, bytes);
  }

  /** Gives back everything held, and leaves the queue when waiting (a granted wait is then given back too). */
  public void giveBack() {
    long was;
    OutboundMemory.Waiter w;
    synchronized (this) {
      w = waiter;
      waiter = null;
      was = held;
      held = 0;
    }
    if (w != null) {
      w.cancel(); // false when granted meanwhile: the work it runs finds its request over and gives it back
    }
    connection.memory().release(was);
  }

  /** Bytes held now. */
  public synchronized long held() {
    return held;
  }

  public ConnectionScope connection() {
    return connection;
  }
}
