package io.brook.broker.security;

import static io.brook.broker.security.Permission.ADMIN;
import static io.brook.broker.security.Permission.CONSUME;
import static io.brook.broker.security.Permission.PRODUCE;
import static io.brook.broker.security.ResourceType.GROUP;
import static io.brook.broker.security.ResourceType.TOPIC;

import io.brook.broker.groups.GroupConfig;
import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.AlterGroupConfigRequest;
import io.brook.protocol.v1.AlterTopicConfigRequest;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.CreatePartitionsRequest;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DeleteGroupRequest;
import io.brook.protocol.v1.DeleteTopicRequest;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.OffsetQuery;
import io.brook.protocol.v1.TailPartition;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.HeartbeatRequest;
import io.brook.protocol.v1.LeaveGroupRequest;
import io.brook.protocol.v1.ListOffsetsRequest;
import io.brook.protocol.v1.ResetGroupOffsetsRequest;
import io.brook.protocol.v1.SettleRequest;
import io.brook.protocol.v1.TailRequest;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.FetchServiceGrpc;
import io.brook.protocol.v1.ForwardServiceGrpc;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.JoinGroupRequest;
import io.brook.protocol.v1.LeaseExtension;
import io.brook.protocol.v1.Nack;
import io.brook.protocol.v1.OffsetRange;
import io.brook.protocol.v1.ListGroupsResponse;
import io.brook.protocol.v1.ListTopicsResponse;
import io.brook.protocol.v1.OffsetCommit;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.brook.protocol.v1.ProduceStreamRequest;
import io.brook.protocol.v1.ReceiveRequest;
import io.grpc.MethodDescriptor;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * What each RPC needs (docs/DECISIONS.md, "Access control"), keyed by full method name. A method
 * missing here is refused to everyone: a new RPC needs its rule before anyone can call it.
 */
final class MethodRules {
  /** The permission a message lacks, as "produce on topic orders", or null when it is allowed. */
  interface Check {
    String missing(Grants grants, Object request);
  }

  /** The answer as this principal may see it (list RPCs drop what it has no permission on). */
  interface Filter {
    Object apply(Grants grants, Object response);
  }

  record Rule(Check check, Filter filter) {}

  private static final Check ANY_PRINCIPAL = (g, m) -> null;
  /** Items that are topic names themselves. */
  private static final Function<String, String> NAME = Function.identity();
  private static final Map<String, Rule> RULES = new HashMap<>();

  static {
    // ProduceService
    rule(ProduceServiceGrpc.getProduceMethod(), topics(PRODUCE, ProduceRequest::getBatchesList, ProduceBatch::getTopic));
    rule(ProduceServiceGrpc.getProduceStreamMethod(), topics(PRODUCE,
        (ProduceStreamRequest r) -> r.getRequest().getBatchesList(), ProduceBatch::getTopic));
    rule(ProduceServiceGrpc.getInitProducerMethod(), // the request names no topic
        (g, m) -> g.hasAny(PRODUCE, TOPIC) ? null : "produce on any topic");
    // FetchService
    rule(FetchServiceGrpc.getFetchMethod(), topics(CONSUME, FetchRequest::getPartitionsList, FetchPartition::getTopic));
    rule(FetchServiceGrpc.getTailMethod(), topics(CONSUME, TailRequest::getPartitionsList, TailPartition::getTopic));
    rule(FetchServiceGrpc.getListOffsetsMethod(), topics(CONSUME, ListOffsetsRequest::getQueriesList,
        OffsetQuery::getTopic));
    // AdminService
    rule(AdminServiceGrpc.getCreateTopicMethod(), one(ADMIN, TOPIC, CreateTopicRequest::getName));
    rule(AdminServiceGrpc.getAlterTopicConfigMethod(), one(ADMIN, TOPIC, AlterTopicConfigRequest::getName));
    rule(AdminServiceGrpc.getCreatePartitionsMethod(), one(ADMIN, TOPIC, CreatePartitionsRequest::getName));
    rule(AdminServiceGrpc.getDeleteTopicMethod(), one(ADMIN, TOPIC, DeleteTopicRequest::getName));
    rule(AdminServiceGrpc.getDescribeTopicMethod(), (g, m) -> anyOn(g, TOPIC,
        ((io.brook.protocol.v1.DescribeTopicRequest) m).getName()));
    RULES.put(AdminServiceGrpc.getListTopicsMethod().getFullMethodName(), new Rule(ANY_PRINCIPAL, (g, a) -> {
      ListTopicsResponse r = (ListTopicsResponse) a;
      return r.getTopicsList().stream().allMatch(t -> g.allowsAny(TOPIC, t.getName())) ? r
          : ListTopicsResponse.newBuilder().addAllTopics(r.getTopicsList().stream()
              .filter(t -> g.allowsAny(TOPIC, t.getName())).toList()).build();
    }));
    // GroupService
    rule(GroupServiceGrpc.getJoinGroupMethod(), (g, m) -> {
      JoinGroupRequest r = (JoinGroupRequest) m;
      String missing = need(g, CONSUME, GROUP, r.getGroup());
      return missing != null ? missing : eachTopic(g, CONSUME, r.getTopicsList(), NAME);
    });
    rule(GroupServiceGrpc.getHeartbeatMethod(), one(CONSUME, GROUP, HeartbeatRequest::getGroup));
    rule(GroupServiceGrpc.getLeaveGroupMethod(), one(CONSUME, GROUP, LeaveGroupRequest::getGroup));
    rule(GroupServiceGrpc.getCommitOffsetsMethod(), (g, m) -> {
      CommitOffsetsRequest r = (CommitOffsetsRequest) m;
      String missing = need(g, CONSUME, GROUP, r.getGroup());
      return missing != null ? missing : eachTopic(g, CONSUME, r.getOffsetsList(), OffsetCommit::getTopic);
    });
    rule(GroupServiceGrpc.getFetchCommittedOffsetsMethod(), (g, m) -> { // the answer shows only topics it may see
      FetchCommittedOffsetsRequest r = (FetchCommittedOffsetsRequest) m;
      String missing = need(g, CONSUME, GROUP, r.getGroup());
      for (int i = 0; missing == null && i < r.getPartitionsCount(); i++) {
        missing = anyOn(g, TOPIC, r.getPartitions(i).getTopic());
      }
      return missing;
    });
    rule(GroupServiceGrpc.getCreateGroupMethod(), (g, m) -> {
      CreateGroupRequest r = (CreateGroupRequest) m;
      String missing = need(g, ADMIN, GROUP, r.getGroup());
      return missing != null ? missing : deadLetter(g, r.getConfigMap());
    });
    rule(GroupServiceGrpc.getAlterGroupConfigMethod(), (g, m) -> {
      AlterGroupConfigRequest r = (AlterGroupConfigRequest) m;
      String missing = need(g, ADMIN, GROUP, r.getGroup());
      return missing != null ? missing : deadLetter(g, r.getSetMap());
    });
    rule(GroupServiceGrpc.getResetGroupOffsetsMethod(), (g, m) -> { // without topics: those it may reset (Caller)
      ResetGroupOffsetsRequest r = (ResetGroupOffsetsRequest) m;
      String missing = need(g, ADMIN, GROUP, r.getGroup());
      for (int i = 0; missing == null && i < r.getPartitionsCount(); i++) {
        String topic = r.getPartitions(i).getTopic();
        if (!g.allows(CONSUME, TOPIC, topic) && !g.allows(ADMIN, TOPIC, topic)) {
          missing = "consume or admin on topic " + topic;
        }
      }
      return missing;
    });
    rule(GroupServiceGrpc.getDeleteGroupMethod(), one(ADMIN, GROUP, DeleteGroupRequest::getGroup));
    rule(GroupServiceGrpc.getDescribeGroupMethod(), (g, m) -> {
      String group = ((io.brook.protocol.v1.DescribeGroupRequest) m).getGroup();
      return g.allows(CONSUME, GROUP, group) || g.allows(ADMIN, GROUP, group) ? null
          : "consume or admin on group " + group;
    });
    RULES.put(GroupServiceGrpc.getListGroupsMethod().getFullMethodName(), new Rule(ANY_PRINCIPAL, (g, a) -> {
      ListGroupsResponse r = (ListGroupsResponse) a;
      return r.getGroupsList().stream().allMatch(s -> g.allowsAny(GROUP, s.getName())) ? r
          : ListGroupsResponse.newBuilder().addAllGroups(r.getGroupsList().stream()
              .filter(s -> g.allowsAny(GROUP, s.getName())).toList()).build();
    }));
    // AckService: the first message of a stream names group and topics; later ones settle within it.
    rule(AckServiceGrpc.getReceiveMethod(), (g, m) -> {
      ReceiveRequest r = (ReceiveRequest) m;
      String missing = r.getGroup().isEmpty() ? null : need(g, CONSUME, GROUP, r.getGroup());
      if (missing == null) {
        missing = eachTopic(g, CONSUME, r.getTopicsList(), NAME);
      }
      return missing != null ? missing : settled(g, r.getAcksList(), r.getNacksList(), r.getExtensionsList());
    });
    rule(AckServiceGrpc.getSettleMethod(), (g, m) -> {
      SettleRequest r = (SettleRequest) m;
      String missing = need(g, CONSUME, GROUP, r.getGroup());
      return missing != null ? missing : settled(g, r.getAcksList(), r.getNacksList(), r.getExtensionsList());
    });
    // ForwardService: a route's source decides what it needs, and only the route knows its source, so
    // the service checks through Caller (D71): any permission on the source to see it, admin to pause.
    rule(ForwardServiceGrpc.getListForwardRoutesMethod(), ANY_PRINCIPAL);
    rule(ForwardServiceGrpc.getDescribeForwardRouteMethod(), ANY_PRINCIPAL);
    rule(ForwardServiceGrpc.getPauseForwardRouteMethod(), ANY_PRINCIPAL);
    rule(ForwardServiceGrpc.getResumeForwardRouteMethod(), ANY_PRINCIPAL);
    // Reflection shows the public schema: any principal.
    rule(ServerReflectionGrpc.getServerReflectionInfoMethod(), ANY_PRINCIPAL);
  }

  private MethodRules() {}

  /** The rule of a method, or null: refused. */
  static Rule of(String fullMethodName) {
    return RULES.get(fullMethodName);
  }

  private static void rule(MethodDescriptor<?, ?> method, Check check) {
    RULES.put(method.getFullMethodName(), new Rule(check, null));
  }

  private static <Q> Check one(Permission p, ResourceType t, Function<Q, String> name) {
    return (g, m) -> {
      @SuppressWarnings("unchecked") Q request = (Q) m;
      return need(g, p, t, name.apply(request));
    };
  }

  /** p on the topic of each item a request lists. */
  private static <Q, T> Check topics(Permission p, Function<Q, List<T>> items, Function<T, String> topic) {
    return (g, m) -> {
      @SuppressWarnings("unchecked") Q request = (Q) m;
      return eachTopic(g, p, items.apply(request), topic);
    };
  }

  /**
   * p on the topic of every item, each name checked once per run of equal names (the batches of a
   * request mostly share a topic). An index loop over the message's own list: nothing is allocated
   * on the produce and fetch paths.
   */
  private static <T> String eachTopic(Grants g, Permission p, List<T> items, Function<T, String> topic) {
    String last = null;
    for (int i = 0; i < items.size(); i++) {
      String name = topic.apply(items.get(i));
      if (!name.equals(last)) {
        String missing = need(g, p, TOPIC, name);
        if (missing != null) {
          return missing;
        }
        last = name;
      }
    }
    return null;
  }

  /**
   * A dead-letter topic named in a group's config is one the broker writes rejected and exhausted
   * records into, and creates on first use: naming it needs produce and admin on it. The default
   * ({@code <group>.dlq}) is left to the group's admin.
   */
  private static String deadLetter(Grants g, Map<String, String> config) {
    String topic = config.get(GroupConfig.DEAD_LETTER_TOPIC);
    if (topic == null) {
      return null;
    }
    String missing = need(g, PRODUCE, TOPIC, topic);
    return missing != null ? missing : need(g, ADMIN, TOPIC, topic);
  }

  /** Consume on the topic of every range acked, nacked or extended. */
  private static String settled(Grants g, List<OffsetRange> acks, List<Nack> nacks, List<LeaseExtension> extensions) {
    String missing = eachTopic(g, CONSUME, acks, OffsetRange::getTopic);
    if (missing == null) {
      missing = eachTopic(g, CONSUME, nacks, n -> n.getRange().getTopic());
    }
    return missing != null ? missing : eachTopic(g, CONSUME, extensions, e -> e.getRange().getTopic());
  }

  private static String need(Grants g, Permission p, ResourceType t, String name) {
    return g.allows(p, t, name) ? null : p.word() + " on " + t.word() + " " + name;
  }

  private static String anyOn(Grants g, ResourceType t, String name) {
    return g.allowsAny(t, name) ? null : "any permission on " + t.word() + " " + name;
  }
}
