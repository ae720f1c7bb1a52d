package io.brook.broker.delivery;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The deliveries of a Receive stream that its member may not have got: a delivery counts as an
 * attempt only once the stream outlived it, that is, stayed open {@link #OUTLIVED_MS} after the
 * message was written to the socket (or the member settled the record). A stream that ends before
 * that ended with the message: a client that refuses a message over its inbound limit resets the
 * stream as it reads the message's length; a member that closes right after its last acks
 * half-closes while the records its acks made room for arrive. The core's {@code AckReceiver} decides
 * at which of those endings their attempts are taken back. Not thread-safe: the group's monitor
 * guards it.
 */
public final class UnconfirmedDeliveries {
  public static final long OUTLIVED_MS = 1000;

  private static final class Sent {
    final SentDelivery delivery;
    /** When the transport had written it (System.nanoTime), or 0 while it is still being sent. */
    long writtenAt;

    Sent(SentDelivery delivery) {
      this.delivery = delivery;
    }
  }

  private final ArrayDeque<Sent> sent = new ArrayDeque<>();

  /** {@code deliveries} went out at {@code nanos} (System.nanoTime). */
  public void sent(List<Delivery> deliveries, long nanos) {
    forgetOutlived(nanos);
    for (Delivery d : deliveries) {
      sent.addLast(new Sent(SentDelivery.of(d)));
    }
  }

  /** The transport wrote everything sent so far. */
  public void written(long nanos) {
    for (Iterator<Sent> it = sent.descendingIterator(); it.hasNext(); ) {
      Sent s = it.next();
      if (s.writtenAt != 0) {
        break;
      }
      s.writtenAt = nanos == 0 ? 1 : nanos;
    }
    forgetOutlived(nanos);
  }

  /** The stream ended at {@code nanos}: the deliveries it did not outlive. */
  public List<SentDelivery> endedAt(long nanos) {
    forgetOutlived(nanos);
    List<SentDelivery> out = new ArrayList<>(sent.size());
    sent.forEach(s -> out.add(s.delivery));
    sent.clear();
    return out;
  }

  private void forgetOutlived(long nanos) {
    long outlived = OUTLIVED_MS * 1_000_000;
    while (!sent.isEmpty() && sent.peekFirst().writtenAt != 0 && nanos - sent.peekFirst().writtenAt >= outlived) {
      sent.pollFirst();
    }
  }
}
