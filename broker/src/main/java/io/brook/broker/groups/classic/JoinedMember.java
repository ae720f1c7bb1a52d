package io.brook.broker.groups.classic;

/** A member as the leader's JoinGroup answer lists it: its metadata for the chosen protocol. */
public record JoinedMember(String memberId, String instanceId, byte[] metadata) {}
