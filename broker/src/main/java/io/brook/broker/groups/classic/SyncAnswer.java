package io.brook.broker.groups.classic;

import io.brook.broker.groups.MemberFault;

/** The answer to a SyncGroup: the member's assignment as its leader encoded it, or a fault. */
public record SyncAnswer(MemberFault fault, String protocolType, String protocolName, byte[] assignment) {
  public static SyncAnswer refused(MemberFault fault) {
    return new SyncAnswer(fault, null, null, new byte[0]);
  }
}
