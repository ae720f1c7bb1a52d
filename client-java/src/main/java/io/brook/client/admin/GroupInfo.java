package io.brook.client.admin;

import java.util.List;
import java.util.Map;

/**
 * A group as the broker describes it: mode, state, generation (offset mode; 0 before the first
 * rebalance), effective config (ack mode; offset-mode groups have none), members, and per partition
 * the committed offset and lag (plus the ack-mode counts). {@code type} as {@link GroupListing#type()}.
 */
public record GroupInfo(String name, GroupMode mode, GroupState state, int generation, Map<String, String> config,
    List<MemberInfo> members, List<GroupPartitionInfo> partitions, String type) {
  public GroupInfo {
    config = Map.copyOf(config);
    members = List.copyOf(members);
    partitions = List.copyOf(partitions);
  }
}
