package io.brook.broker.groups.classic;

/** A member a LeaveGroup names: by member id, or by instance id for a static member (either may be "" / null). */
public record MemberIdentity(String memberId, String instanceId) {}
