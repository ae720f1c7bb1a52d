package io.brook.broker.core;

import io.brook.broker.delivery.Delivery;
import io.brook.broker.errors.BrokerException;
import java.util.List;

/**
 * Where an ack-mode member's deliveries go, as an adapter implements it: what it can take now, the
 * deliveries, and the ends the group gives it. {@link AckReceiver} stands between it and the group,
 * and notes what went out. Called under the group's monitor, one call at a time.
 */
public interface ReceiveStream {
  /**
   * Bytes of records the stream can take now (0: none, until it asks for a dispatch): what its
   * transport and the broker's outbound memory allow.
   */
  long sendableBytes();

  /** False once the stream ended: what is handed to it then is not sent. */
  boolean open();

  void deliver(List<Delivery> deliveries);

  /** A dispatch asked what the stream could take and gave it nothing: what it reserved goes back. */
  void unused();

  /** A newer stream of the same member took over: this one ends for good, with that error. */
  void replaced(BrokerException why);

  /** The broker stops: the member should connect again. */
  void shutDown(String why);
}
