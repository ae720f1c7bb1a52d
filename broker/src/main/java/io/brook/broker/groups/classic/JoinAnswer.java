package io.brook.broker.groups.classic;

import io.brook.broker.groups.MemberFault;
import java.util.List;

/**
 * The answer to a classic JoinGroup.
 *
 * @param fault null when joined; MEMBER_ID_REQUIRED carries the new {@code memberId}
 * @param members the members with their metadata: for the leader only (empty for the others)
 * @param skipAssignment a static leader that rejoined with nothing changed: it must not assign again
 */
public record JoinAnswer(MemberFault fault, String memberId, int generation, String protocolType,
    String protocolName, String leaderId, boolean skipAssignment, List<JoinedMember> members) {

  public static JoinAnswer refused(MemberFault fault, String memberId) {
    return new JoinAnswer(fault, memberId, -1, null, null, "", false, List.of());
  }
}
