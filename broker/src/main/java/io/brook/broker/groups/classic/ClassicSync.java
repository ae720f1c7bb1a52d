package io.brook.broker.groups.classic;

import java.util.Map;

/**
 * A classic SyncGroup.
 *
 * @param protocolType null below v5, where the request does not carry it
 * @param protocolName null below v5
 * @param assignments the leader's assignment per member id (empty from followers)
 * @param owner the caller's principal (null with auth off)
 */
public record ClassicSync(int generation, String memberId, String instanceId, String protocolType,
    String protocolName, Map<String, MemberAssignment> assignments, String owner) {
  public ClassicSync {
    assignments = Map.copyOf(assignments);
  }
}
