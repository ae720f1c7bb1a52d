package io.brook.client.admin;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A member of a group. {@code assignment}: topic → partitions (offset mode), or topic → empty list
 * for the topics an ack-mode member receives from, in the broker's order. {@code leasedRecords} and
 * {@code connected} are for ack mode (a member with a client id stays known, not connected, between
 * streams). {@code instanceId}: a Kafka static member's group.instance.id, or null.
 */
public record MemberInfo(String memberId, String clientId, String clientAddress, Map<String, List<Integer>> assignment,
    long lastHeartbeatMs, long leasedRecords, boolean connected, String instanceId) {
  public MemberInfo {
    assignment = Collections.unmodifiableMap(new LinkedHashMap<>(assignment)); // in the broker's order
  }
}
