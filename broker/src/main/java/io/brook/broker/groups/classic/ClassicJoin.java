package io.brook.broker.groups.classic;

import java.util.List;

/**
 * A classic JoinGroup as the engine sees it.
 *
 * @param memberId "" for a member that has no id yet
 * @param instanceId a static member's group.instance.id, or null
 * @param clientHost the client's address, as describe shows it
 * @param protocols the member's assignors in its order of preference
 * @param requireKnownMemberId JoinGroup v4+ from a dynamic member: a new member first gets an id
 *     (MEMBER_ID_REQUIRED) and joins again with it
 * @param supportsSkipAssignment JoinGroup v9+: a static leader's rejoin may be told to skip the assignment
 * @param owner the caller's principal (null with auth off): only it may act as the member
 */
public record ClassicJoin(String memberId, String instanceId, String clientId, String clientHost,
    int sessionTimeoutMs, int rebalanceTimeoutMs, String protocolType, List<ClassicProtocol> protocols,
    boolean requireKnownMemberId, boolean supportsSkipAssignment, String owner) {
  public ClassicJoin {
    protocols = List.copyOf(protocols);
  }
}
