package io.brook.broker.core;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.Group;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.groups.GroupProtocol;
import io.brook.broker.groups.MemberFault;
import io.brook.broker.groups.MemberFaultException;
import io.brook.broker.groups.Membership;
import io.brook.broker.groups.MembershipHost;
import io.brook.broker.groups.OffsetGroup;
import io.brook.broker.groups.classic.ClassicMembership;
import io.brook.broker.groups.consumer.ConsumerGroupDescription;
import io.brook.broker.groups.consumer.ConsumerHeartbeat;
import io.brook.broker.groups.consumer.ConsumerMembership;
import io.brook.broker.groups.consumer.ConsumerSettings;
import io.brook.broker.groups.consumer.HeartbeatAnswer;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's KIP-848 consumer groups (ConsumerGroupHeartbeat, ConsumerGroupDescribe): the checks of a
 * request's values, then the group's {@link ConsumerMembership}, under the group's monitor. Refusals
 * come back as {@link MemberFault}s in the answer, which the Kafka door maps by name.
 */
public final class ConsumerGroupService {
  private static final Logger log = LoggerFactory.getLogger(ConsumerGroupService.class);
  private final GroupManager groups;
  private final ConsumerSettings settings;

  public ConsumerGroupService(GroupManager groups, ConsumerSettings settings) {
    this.groups = groups;
    this.settings = settings;
  }

  /**
   * Takes a heartbeat: epoch 0 joins (the group is made when absent), -1 leaves, -2 leaves for a while.
   *
   * @param memberIdFromClient whether the client must choose its member id (ConsumerGroupHeartbeat v1+)
   */
  public HeartbeatAnswer heartbeat(ConsumerHeartbeat hb, boolean memberIdFromClient) {
    String invalid = invalid(hb, memberIdFromClient);
    if (invalid != null) {
      return HeartbeatAnswer.refused(MemberFault.INVALID_REQUEST, invalid);
    }
    try {
      boolean joining = hb.memberEpoch() == 0;
      OffsetGroup g = joining ? groups.kafkaGroup(hb.group(), true) : existing(hb.group());
      synchronized (g) {
        HeartbeatAnswer[] upgraded = {null};
        ConsumerMembership m = joining
            ? g.membership(ConsumerMembership.class, GroupProtocol.CONSUMER, host -> new ConsumerMembership(host, settings),
                (host, other) -> upgrade(host, other, hb, upgraded))
            : g.membershipIfAny(ConsumerMembership.class);
        if (m == null) {
          throw unknownMember(hb);
        }
        return upgraded[0] != null ? upgraded[0] : m.heartbeat(hb);
      }
    } catch (MemberFaultException e) {
      if (e.fault() == MemberFault.INCONSISTENT_GROUP_PROTOCOL && hb.memberEpoch() == 0) {
        // a classic group that does not become a KIP-848 group: Kafka answers that it is not one
        return HeartbeatAnswer.refused(MemberFault.GROUP_ID_NOT_FOUND, e.getMessage());
      }
      return HeartbeatAnswer.refused(e.fault(), e.getMessage());
    } catch (BrokerException e) {
      if (e.error() == BrokerError.INCONSISTENT_GROUP_MODE) { // an ack group, or gRPC members in it
        return HeartbeatAnswer.refused(MemberFault.INCONSISTENT_GROUP_PROTOCOL, e.getMessage());
      }
      if (e.error() == BrokerError.UNKNOWN_GROUP) {
        return HeartbeatAnswer.refused(MemberFault.UNKNOWN_MEMBER_ID, unknownMember(hb).getMessage());
      }
      if (e.error() == BrokerError.INVALID_REQUEST) { // the group id (GroupIds says why)
        return HeartbeatAnswer.refused(MemberFault.INVALID_GROUP_ID, e.getMessage());
      }
      throw e;
    }
  }

  /**
   * A KIP-848 consumer joins a classic group with members (Kafka's online upgrade): when the policy
   * allows and they are consumers, they become classic members of a KIP-848 group, which the join
   * then enters; else null. A refused join leaves the classic group as it was (the exception).
   */
  private ConsumerMembership upgrade(MembershipHost host, Membership other, ConsumerHeartbeat hb,
      HeartbeatAnswer[] answer) {
    if (!settings.migration().upgrades() || !(other instanceof ClassicMembership classic) || !classic.canHandOver()) {
      return null;
    }
    ConsumerMembership made = ConsumerMembership.fromClassic(host, settings, classic.handOver());
    answer[0] = made.heartbeat(hb);
    classic.retire();
    log.info("Group {}: now a KIP-848 group: member {} joined its {} classic member(s)", hb.group(), hb.memberId(),
        made.memberCount() - 1);
    return made;
  }

  /** The group as ConsumerGroupDescribe shows it; empty when there is no such group or it is not a KIP-848 group. */
  public Optional<ConsumerGroupDescription> describe(String group) {
    Group g = groups.find(group);
    if (!(g instanceof OffsetGroup og)) {
      return Optional.empty();
    }
    synchronized (og) {
      ConsumerMembership m = og.membershipIfAny(ConsumerMembership.class);
      return og.protocol() == GroupProtocol.CONSUMER && m != null ? Optional.of(m.describe()) : Optional.empty();
    }
  }

  private OffsetGroup existing(String group) {
    Group g = groups.find(group);
    if (!(g instanceof OffsetGroup og)) {
      throw new BrokerException(BrokerError.UNKNOWN_GROUP, "unknown group '" + group + "'");
    }
    return og;
  }

  private static MemberFaultException unknownMember(ConsumerHeartbeat hb) {
    return new MemberFaultException(MemberFault.UNKNOWN_MEMBER_ID, "member '" + hb.memberId() + "' is not in group '"
        + hb.group() + "' (it left, timed out, or the broker restarted): join again with epoch 0");
  }

  /** What Kafka refuses as INVALID_REQUEST before looking at the group; null when the request is well formed. */
  private static String invalid(ConsumerHeartbeat hb, boolean memberIdFromClient) {
    int epoch = hb.memberEpoch();
    if (hb.group().isEmpty()) {
      return "GroupId can't be empty";
    }
    if (hb.instanceId() != null && hb.instanceId().isEmpty()) {
      return "InstanceId can't be empty";
    }
    if (hb.rackId() != null && hb.rackId().isEmpty()) {
      return "RackId can't be empty";
    }
    if (epoch < -2) {
      return "MemberEpoch " + epoch + " is invalid: 0 joins, -1 leaves, -2 leaves for a while, else the member's epoch";
    }
    if (hb.memberId().isEmpty() && (epoch != 0 || memberIdFromClient)) {
      return "MemberId can't be empty" + (memberIdFromClient ? ": the client chooses it (a UUID) from version 1" : "");
    }
    if (epoch == -2 && hb.instanceId() == null) {
      return "InstanceId can't be null when leaving with epoch -2 (only a static member leaves for a while)";
    }
    if (epoch == 0) {
      if (hb.rebalanceTimeoutMs() < 0) {
        return "RebalanceTimeoutMs must be provided in first request";
      }
      if (hb.subscribedTopicNames() == null && hb.subscribedTopicRegex() == null) {
        return "SubscribedTopicNames or SubscribedTopicRegex must be given to join";
      }
      if (hb.owned() == null || !hb.owned().isEmpty()) {
        return "TopicPartitions must be empty when joining";
      }
    }
    return null;
  }
}
