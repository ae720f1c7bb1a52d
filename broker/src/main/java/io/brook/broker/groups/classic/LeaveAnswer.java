package io.brook.broker.groups.classic;

import io.brook.broker.groups.MemberFault;
import java.util.List;

/**
 * The answer to a LeaveGroup.
 *
 * @param fault null, or why the whole request was refused (then {@code members} is empty)
 * @param members per member named, in order: null when it left, else why not
 */
public record LeaveAnswer(MemberFault fault, List<MemberFault> members) {}
