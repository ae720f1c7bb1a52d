package io.brook.broker.kafka.apis;

import io.brook.broker.core.GroupService;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.GroupMode;
import io.brook.broker.groups.GroupView;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeGroups in Kafka's classic form, for every offset group whatever door its members use:
 * Kafka members with the metadata and assignment bytes they sent (in Stable, as Kafka), Brook's gRPC
 * members with their assignment encoded as a consumer's (so kafka-consumer-groups shows it). Ack
 * groups are not consumer groups: GROUP_ID_NOT_FOUND, as Kafka answers for a share group. An unknown
 * group is "Dead" before v6 and GROUP_ID_NOT_FOUND from v6 (KIP-1043).
 */
public final class DescribeGroupsApi implements KafkaApi {
  private static final short NOT_FOUND_VERSION = 6;
  private static final byte[] NONE = new byte[0];

  private final GroupService groups;

  public DescribeGroupsApi(GroupService groups) {
    this.groups = groups;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.DESCRIBE_GROUPS;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 6;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    DescribeGroupsRequestData body = (DescribeGroupsRequestData) request.body();
    DescribeGroupsResponseData response = new DescribeGroupsResponseData().setThrottleTimeMs(0);
    for (String group : body.groups()) {
      DescribedGroup d = describe(request, group);
      if (request.apiVersion() >= 3 && body.includeAuthorizedOperations() && d.errorCode() == Errors.NONE.code()) {
        d.setAuthorizedOperations(operations(request.caller(), group));
      }
      response.groups().add(d);
    }
    return CompletableFuture.completedFuture(response);
  }

  private DescribedGroup describe(KafkaRequest request, String group) {
    DescribedGroup d = new DescribedGroup().setGroupId(group).setGroupState("").setProtocolType("")
        .setProtocolData("");
    KafkaCaller caller = request.caller();
    if (group.isEmpty()) {
      return refuse(d, new Failure(Errors.INVALID_GROUP_ID, "the group id is empty"), request);
    }
    if (!caller.consumeGroup(group) && !caller.adminGroup(group)) {
      return refuse(d, GroupErrors.notAuthorized(group), request);
    }
    GroupView v;
    try {
      v = groups.describe(group, caller.visibleTopics());
    } catch (BrokerException e) {
      if (e.error() != BrokerError.UNKNOWN_GROUP) {
        return refuse(d, GroupErrors.of(e).invalidRequestAs(Errors.INVALID_GROUP_ID), request);
      }
      return unknown(d, "unknown group '" + group + "'", request);
    }
    if (v.mode() == GroupMode.ACK) {
      return unknown(d, "group '" + group + "' is an ack-mode (share) group, not a consumer group", request);
    }
    boolean stable = v.kafkaState().equals("Stable");
    d.setErrorCode(Errors.NONE.code()).setGroupState(v.kafkaState()).setProtocolType(v.protocolType())
        .setProtocolData(stable ? protocolData(v) : "");
    for (GroupView.Member m : v.members()) {
      d.members().add(new DescribedGroupMember().setMemberId(m.memberId()).setGroupInstanceId(m.instanceId())
          .setClientId(m.clientId()).setClientHost(m.address())
          .setMemberMetadata(stable && m.metadata() != null ? m.metadata() : NONE)
          .setMemberAssignment(stable ? assignment(m) : NONE));
    }
    return d;
  }

  /** The chosen assignor; Brook's own members are assigned by the broker ("brook"). */
  private static String protocolData(GroupView v) {
    if (!v.protocolName().isEmpty()) {
      return v.protocolName();
    }
    return v.protocol() == io.brook.broker.groups.GroupProtocol.BROOK ? "brook" : "";
  }

  /** A Kafka member's bytes as sent; else (gRPC, KIP-848 members) the assignment encoded as a consumer's. */
  private static byte[] assignment(GroupView.Member m) {
    if (m.assignmentBytes() != null) {
      return m.assignmentBytes();
    }
    List<TopicPartition> tps = m.assignment().stream().map(tp -> new TopicPartition(tp.topic(), tp.partition()))
        .toList();
    ByteBuffer b = ConsumerProtocol.serializeAssignment(new Assignment(tps));
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  private static DescribedGroup unknown(DescribedGroup d, String message, KafkaRequest request) {
    if (request.apiVersion() >= NOT_FOUND_VERSION) {
      return d.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code()).setErrorMessage(message);
    }
    return d.setErrorCode(Errors.NONE.code()).setGroupState("Dead");
  }

  private static DescribedGroup refuse(DescribedGroup d, Failure f, KafkaRequest request) {
    return d.setErrorCode(f.code()).setErrorMessage(request.apiVersion() >= NOT_FOUND_VERSION ? f.message() : null);
  }

  /** Kafka's operations bit field on the group, from Brook's permissions. */
  private static int operations(KafkaCaller caller, String group) {
    int ops = 0;
    if (caller.anyOnGroup(group)) {
      ops |= 1 << AclOperation.DESCRIBE.code();
    }
    if (caller.consumeGroup(group)) {
      ops |= 1 << AclOperation.READ.code();
    }
    if (caller.adminGroup(group)) {
      ops |= 1 << AclOperation.DELETE.code() | 1 << AclOperation.READ.code();
    }
    return ops;
  }
}
