package io.brook.broker.core;

import io.brook.broker.groups.AckGroup;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.groups.Settlement;
import java.util.List;

/**
 * Ack-mode groups, whichever protocol asks: a member starts receiving ({@link AckReceiver}, which
 * also settles, follows flow control and ends), or settles by its id outside a stream. Creating and
 * configuring an ack-mode group is {@link GroupService}'s, as for offset mode.
 */
public final class AckService {
  private final GroupManager groups;

  public AckService(GroupManager groups) {
    this.groups = groups;
  }

  /**
   * Checks a member's start and finds its group (created when absent, once its topics are known to
   * exist). The member joins with {@link AckReceiver#connect}.
   */
  public AckReceiver open(ReceiveStart start) {
    MemberChecks.check("the first ReceiveRequest", start.group(), start.topics(), start.clientId());
    FlowLimits limits = FlowLimits.of(start.maxRecords(), start.maxBytes());
    groups.checkTopicsExist(start.topics()); // before the group is created on demand
    AckGroup g = groups.ackGroup(start.group(), true);
    return new AckReceiver(g, start, limits);
  }

  /** Settles for a member by its id (the caller must be the principal that made it). */
  public List<Settlement.Failure> settle(String group, String memberId, Settlement settlement, String principal) {
    AckGroup g = groups.ackGroup(group, false);
    return g.settle(g.member(memberId, principal), settlement);
  }
}
