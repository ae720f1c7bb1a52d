package io.brook.broker.core;

import io.brook.broker.delivery.AckMember;
import io.brook.broker.groups.AckGroup;

/**
 * Where an ack-mode member's deliveries go, as an adapter implements it: what it can take now, the
 * deliveries, and the ends the group gives it (replaced by a newer stream, the broker stopping).
 * Called under the group's monitor.
 */
public interface ReceiveStream extends AckMember.Sink, AckGroup.Closeable {}
