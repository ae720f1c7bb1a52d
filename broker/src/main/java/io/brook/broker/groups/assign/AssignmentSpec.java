package io.brook.broker.groups.assign;

import java.util.Map;

/**
 * What an assignor decides on.
 *
 * @param members member id → what it subscribes to and holds now
 * @param partitionCounts topic → its partition count, for the subscribed topics that exist
 */
public record AssignmentSpec(Map<String, MemberSpec> members, Map<String, Integer> partitionCounts) {}
