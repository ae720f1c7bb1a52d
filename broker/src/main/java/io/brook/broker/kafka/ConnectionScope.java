package io.brook.broker.kafka;

import io.brook.broker.kafka.access.KafkaCaller;
import io.brook.broker.kafka.access.KafkaCallers;
import io.brook.broker.kafka.sasl.SaslSession;
import io.brook.broker.outbound.OutboundMemory;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.slf4j.LoggerFactory;

/**
 * What the requests of one Kafka connection share: the connection's account of the broker's outbound
 * memory, the executor that runs its handlers one at a time in request order, and the hooks that
 * release what a request still holds (a long poll, a wait for memory) when the connection closes.
 */
public final class ConnectionScope {
  private final OutboundMemory.Account memory;
  private final Executor executor;
  private final Set<Runnable> onClose = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;
  /** Null until the connection authenticates (auth on). */
  private volatile KafkaCaller caller;
  private final SaslSession sasl = new SaslSession();

  /**
   * A connection with auth off: everything allowed ({@link KafkaCaller#OPEN}).
   *
   * @param memory the connection's account; {@link #close()} closes it
   * @param executor runs the connection's tasks one at a time, in the order given
   */
  public ConnectionScope(OutboundMemory.Account memory, Executor executor) {
    this(memory, executor, false);
  }

  /** @param mustAuthenticate auth is on: the connection is nobody until {@link #authenticated(KafkaCaller)} */
  public ConnectionScope(OutboundMemory.Account memory, Executor executor, boolean mustAuthenticate) {
    this.memory = memory;
    this.executor = executor;
    this.caller = mustAuthenticate ? null : KafkaCaller.OPEN;
  }

  /** A scope of its own (a handler called without a listener, as in tests): no memory bound, work runs at once. */
  public static ConnectionScope standalone() {
    return new ConnectionScope(new OutboundMemory(Long.MAX_VALUE, Long.MAX_VALUE).open(), Runnable::run);
  }

  /** Who the connection authenticated as; {@link KafkaCaller#OPEN} with auth off; allowed nothing before. */
  public KafkaCaller caller() {
    KafkaCaller c = caller;
    return c == null ? KafkaCallers.nobody() : c;
  }

  /** Whether it authenticated (always, with auth off). */
  public boolean isAuthenticated() {
    return caller != null;
  }

  /** Its SASL exchange. */
  public SaslSession sasl() {
    return sasl;
  }

  /** The connection authenticated (SASL, or a client certificate): its later requests act as {@code who}. */
  public void authenticated(KafkaCaller who) {
    this.caller = who;
  }

  public OutboundMemory.Account memory() {
    return memory;
  }

  /** Where work woken off the connection's thread (memory granted) goes on, in the connection's order. */
  public Executor executor() {
    return executor;
  }

  /** Runs {@code hook} once when the connection closes; at once when it has closed already. */
  public void onClose(Runnable hook) {
    onClose.add(hook);
    if (closed && onClose.remove(hook)) {
      run(hook);
    }
  }

  /** The request no longer holds anything: {@code hook} will not run. */
  public void removeOnClose(Runnable hook) {
    onClose.remove(hook);
  }

  /** The connection closed: every hook runs once (whoever removes it runs it), then the account closes. */
  public void close() {
    closed = true;
    for (Runnable r : onClose) {
      if (onClose.remove(r)) {
        run(r);
      }
    }
    memory.close();
  }

  /** One hook that fails must not keep the others from releasing what they hold. */
  private static void run(Runnable hook) {
    try {
      hook.run();
    } catch (RuntimeException e) {
      LoggerFactory.getLogger(ConnectionScope.class).warn("Releasing a Kafka request of a closed connection failed: {}",
          e.toString());
    }
  }
}
