package io.brook.broker.core;

import io.brook.broker.groups.GroupMode;
import io.brook.broker.groups.GroupProtocol;
import io.brook.broker.groups.GroupState;

/**
 * A group as a list of groups shows it.
 *
 * @param protocol the protocol its members speak or last spoke (NONE for ack mode)
 * @param protocolType Kafka's protocol type ("consumer", "share" for ack mode, "" when none)
 * @param kafkaState the state under Kafka's name
 */
public record GroupListing(String name, GroupMode mode, GroupState state, int memberCount, GroupProtocol protocol,
    String protocolType, String kafkaState) {

  /** As {@link io.brook.broker.groups.GroupView#type()}. */
  public String type() {
    return io.brook.broker.groups.GroupView.typeOf(mode, protocol);
  }
}
