package io.brook.broker.core;

import io.brook.broker.delivery.AckMember;
import io.brook.broker.delivery.Delivery;
import io.brook.broker.delivery.SentDelivery;
import io.brook.broker.delivery.UnconfirmedDeliveries;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.AckGroup;
import io.brook.broker.groups.Settlement;
import java.util.List;
import java.util.function.Consumer;

/**
 * One member receiving from an ack-mode group, whichever protocol carries it: joins, settles,
 * follows flow control, and ends. It remembers what went out until the stream outlived it
 * ({@link UnconfirmedDeliveries}), so that deliveries a member may never have got do not count as
 * attempts. Everything that sends runs under the group's monitor ({@link #locked}), so what goes
 * out on one stream never interleaves.
 */
public final class AckReceiver {
  private final AckGroup group;
  private final ReceiveStart start;
  private final FlowLimits limits;
  /** Guarded by the group's monitor. */
  private final UnconfirmedDeliveries unconfirmed = new UnconfirmedDeliveries();
  private volatile AckMember member;
  private Sink sink;

  AckReceiver(AckGroup group, ReceiveStart start, FlowLimits limits) {
    this.group = group;
    this.start = start;
    this.limits = limits;
  }

  /**
   * The member joins (new, or taking over its client id) and deliveries may start; {@code joined}
   * gets its id under the group's monitor, so an answer naming it goes out before any record can.
   */
  public void connect(ReceiveStream to, Consumer<String> joined) {
    synchronized (group) {
      sink = new Sink(to);
      AckMember m = group.connect(start.clientId(), start.topics(), sink, limits.maxRecords(), limits.maxBytes(),
          start.address(), start.principal());
      member = m;
      joined.accept(m.id());
    }
  }

  /** Runs {@code work} under the group's monitor: with nothing sent meanwhile on this member's stream. */
  public void locked(Runnable work) {
    synchronized (group) {
      work.run();
    }
  }

  /**
   * Settles; {@code answer} gets what did not apply, under the group's monitor, so an answer on the
   * stream keeps its place among the deliveries.
   */
  public void settle(Settlement settlement, Consumer<List<Settlement.Failure>> answer) {
    synchronized (group) {
      answer.accept(group.settle(member, settlement));
    }
  }

  /** New flow control limits (0: the default). */
  public void flowControl(long maxRecords, long maxBytes) {
    FlowLimits fc = FlowLimits.of(maxRecords, maxBytes);
    group.flowControl(member, fc.maxRecords(), fc.maxBytes());
  }

  /** The stream can take more: the group's dispatch looks again. */
  public void requestDispatch() {
    group.requestDispatch();
  }

  /** The transport wrote everything sent so far. Under the group's monitor. */
  public void written(long nanos) {
    unconfirmed.written(nanos);
  }

  /**
   * The stream is over. The deliveries it did not outlive (written less than a second ago, or not
   * yet) do not count as attempts when it {@code failed} (the client reset it, the connection
   * broke), nor whenever its member hands its leases back as its stream ends (no client id): a
   * member that closes right after its last acks is not charged for what the broker sent it
   * meanwhile. A member with a client id that ends its stream cleanly keeps its leases, and so
   * they count. {@code release} runs under the group's monitor before the member disconnects: the
   * stream gives back what it holds.
   */
  public void end(boolean failed, Runnable release) {
    AckMember m = member;
    if (m == null) {
      return; // it never joined: nothing was sent or reserved
    }
    synchronized (group) {
      List<SentDelivery> notOutlived = unconfirmed.endedAt(System.nanoTime());
      if (failed || !m.keepsLeases()) {
        group.undeliver(m, notOutlived);
      }
      release.run();
      group.disconnect(m, sink);
    }
  }

  /** The group's side of the stream: notes what goes out before the stream sends it. */
  private final class Sink implements AckMember.Sink, AckGroup.Closeable {
    private final ReceiveStream stream;

    Sink(ReceiveStream stream) {
      this.stream = stream;
    }

    @Override
    public long sendableBytes() {
      return stream.sendableBytes();
    }

    @Override
    public void deliver(List<Delivery> deliveries) {
      if (stream.open()) { // noted first: a stream that fails while sending takes them back
        unconfirmed.sent(deliveries, System.nanoTime());
      }
      stream.deliver(deliveries);
    }

    @Override
    public void unused() {
      stream.unused();
    }

    @Override
    public void replaced(BrokerException why) {
      stream.replaced(why);
    }

    @Override
    public void shutDown(String why) {
      stream.shutDown(why);
    }
  }
}
