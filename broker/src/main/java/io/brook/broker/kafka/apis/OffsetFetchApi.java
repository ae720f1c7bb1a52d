package io.brook.broker.kafka.apis;

import io.brook.broker.core.GroupService;
import io.brook.broker.core.OffsetQuery;
import io.brook.broker.core.TopicAdmin;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.CommittedOffset;
import io.brook.broker.groups.MemberFaultException;
import io.brook.broker.groups.TopicPartition;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopic;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * OffsetFetch from Brook's committed offsets (gRPC's commits too). v1-7 ask for one group, v8+ for
 * many, each answered with its own error; null topics mean every committed one the caller may see;
 * v10 names topics by id. A partition with nothing committed (or of an unknown group) is offset -1
 * with no error, as in Kafka. From v9 a KIP-848 consumer names itself (member id and epoch), which its
 * group checks as Kafka 4.3 does; an unknown group checks nothing. No transactions: require_stable
 * changes nothing.
 */
public final class OffsetFetchApi implements KafkaApi {
  private static final short MULTI_GROUP_VERSION = 8;
  private static final short TOPIC_ID_VERSION = 10;

  private final GroupService groups;
  private final TopicAdmin topics;

  public OffsetFetchApi(GroupService groups, TopicAdmin topics) {
    this.groups = groups;
    this.topics = topics;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.OFFSET_FETCH;
  }

  @Override
  public short minVersion() {
    return 1;
  }

  @Override
  public short maxVersion() {
    return 10;
  }

  /** One topic asked for: its name (null for an unknown topic id), its id when asked by id. */
  private record Asked(String name, Uuid id, List<Integer> partitions) {}

  /** One partition's answer. */
  private record Answer(int partition, long offset, String metadata, Errors error) {}

  /** One topic's answer. */
  private record TopicAnswer(String name, Uuid id, List<Answer> partitions) {}

  /** The member a v9+ request names: a KIP-848 group checks it (UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH). */
  private record Member(String id, int epoch) {
    static final Member NONE = new Member(null, -1);
  }

  /** One group's answer: an error for the whole group, or its topics. */
  private record GroupAnswer(Failure failure, List<TopicAnswer> topics) {}

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    OffsetFetchRequestData body = (OffsetFetchRequestData) request.body();
    OffsetFetchResponseData response = new OffsetFetchResponseData().setThrottleTimeMs(0);
    if (request.apiVersion() >= MULTI_GROUP_VERSION) {
      boolean byId = request.apiVersion() >= TOPIC_ID_VERSION;
      for (OffsetFetchRequestGroup g : body.groups()) {
        List<Asked> asked = null;
        if (g.topics() != null) {
          asked = new ArrayList<>();
          for (OffsetFetchRequestTopics t : g.topics()) {
            asked.add(byId ? new Asked(ConsumerOffsetsTopic.nameOf(t.topicId(), topics), t.topicId(), t.partitionIndexes())
                : new Asked(t.name(), null, t.partitionIndexes()));
          }
        }
        Member member = new Member(g.memberId(), g.memberEpoch()); // v9+; null and -1 before
        response.groups().add(multiGroupForm(g.groupId(), fetch(request, g.groupId(), member, asked, byId)));
      }
      return CompletableFuture.completedFuture(response);
    }
    List<Asked> asked = null;
    if (body.topics() != null) {
      asked = new ArrayList<>();
      for (OffsetFetchRequestTopic t : body.topics()) {
        asked.add(new Asked(t.name(), null, t.partitionIndexes()));
      }
    }
    GroupAnswer answer = fetch(request, body.groupId(), Member.NONE, asked, false);
    if (answer.failure() != null) {
      // v2+ has a top-level error; v1 only the partitions' codes, so they carry it.
      return CompletableFuture.completedFuture(response.setErrorCode(answer.failure().code())
          .setTopics(singleGroupForm(withError(asked, answer.failure().error()))));
    }
    return CompletableFuture.completedFuture(response.setErrorCode(Errors.NONE.code())
        .setTopics(singleGroupForm(answer.topics())));
  }

  private GroupAnswer fetch(KafkaRequest request, String group, Member member, List<Asked> asked, boolean byId) {
    KafkaCaller caller = request.caller();
    if (group.isEmpty()) {
      return new GroupAnswer(new Failure(Errors.INVALID_GROUP_ID, "the group id is empty"), List.of());
    }
    if (!caller.consumeGroup(group) && !caller.adminGroup(group)) {
      return new GroupAnswer(GroupErrors.notAuthorized(group), List.of());
    }
    try {
      groups.checkKafkaFetch(group, member.id(), member.epoch(), caller.principal());
      List<OffsetQuery> queries = new ArrayList<>();
      if (asked != null) {
        for (Asked a : asked) {
          if (a.name() != null && caller.anyOnTopic(a.name()) && !a.partitions().isEmpty()) {
            queries.add(new OffsetQuery(a.name(), a.partitions()));
          }
        }
        if (queries.isEmpty()) { // an empty query list would mean "all"
          return new GroupAnswer(null, answersFor(asked, Map.of(), caller));
        }
      }
      Map<TopicPartition, CommittedOffset> found = new LinkedHashMap<>();
      for (Map.Entry<TopicPartition, CommittedOffset> e : groups.committed(group, queries, caller.visibleTopics())) {
        if (e.getValue() != null) {
          found.put(e.getKey(), e.getValue());
        }
      }
      return new GroupAnswer(null, asked != null ? answersFor(asked, found, caller) : everything(found, byId));
    } catch (BrokerException | MemberFaultException e) {
      return new GroupAnswer(GroupErrors.of(e).invalidRequestAs(Errors.INVALID_GROUP_ID), List.of());
    }
  }

  private static List<TopicAnswer> answersFor(List<Asked> asked, Map<TopicPartition, CommittedOffset> found,
      KafkaCaller caller) {
    List<TopicAnswer> out = new ArrayList<>();
    for (Asked a : asked) {
      Errors error = a.name() == null ? Errors.UNKNOWN_TOPIC_ID
          : !caller.anyOnTopic(a.name()) ? Errors.TOPIC_AUTHORIZATION_FAILED : Errors.NONE;
      List<Answer> parts = new ArrayList<>();
      for (int p : a.partitions()) {
        CommittedOffset co = error == Errors.NONE ? found.get(new TopicPartition(a.name(), p)) : null;
        parts.add(co == null ? new Answer(p, -1, "", error) : new Answer(p, co.offset(), co.metadata(), Errors.NONE));
      }
      out.add(new TopicAnswer(a.name() == null ? "" : a.name(), a.id(), parts));
    }
    return out;
  }

  private List<TopicAnswer> everything(Map<TopicPartition, CommittedOffset> found, boolean byId) {
    Map<String, TopicAnswer> byTopic = new LinkedHashMap<>();
    found.forEach((tp, co) -> {
      TopicAnswer t = byTopic.computeIfAbsent(tp.topic(), name -> new TopicAnswer(name, byId ? id(name) : null,
          new ArrayList<>()));
      t.partitions().add(new Answer(tp.partition(), co.offset(), co.metadata(), Errors.NONE));
    });
    return new ArrayList<>(byTopic.values());
  }

  private Uuid id(String topic) {
    UUID id = topics.idOf(topic);
    return id == null ? Uuid.ZERO_UUID : TopicIds.toKafka(id);
  }

  /** Every partition asked for, failed with the group's error (v1 has no other place for it). */
  private static List<TopicAnswer> withError(List<Asked> asked, Errors error) {
    List<TopicAnswer> out = new ArrayList<>();
    if (asked != null) {
      for (Asked a : asked) {
        out.add(new TopicAnswer(a.name() == null ? "" : a.name(), a.id(),
            a.partitions().stream().map(p -> new Answer(p, -1, "", error)).toList()));
      }
    }
    return out;
  }

  private static OffsetFetchResponseGroup multiGroupForm(String group, GroupAnswer answer) {
    OffsetFetchResponseGroup g = new OffsetFetchResponseGroup().setGroupId(group)
        .setErrorCode(answer.failure() == null ? Errors.NONE.code() : answer.failure().code());
    for (TopicAnswer t : answer.topics()) {
      OffsetFetchResponseTopics topic = new OffsetFetchResponseTopics().setName(t.name())
          .setTopicId(t.id() == null ? Uuid.ZERO_UUID : t.id());
      for (Answer a : t.partitions()) {
        topic.partitions().add(new OffsetFetchResponsePartitions().setPartitionIndex(a.partition())
            .setCommittedOffset(a.offset()).setCommittedLeaderEpoch(-1).setMetadata(a.metadata())
            .setErrorCode(a.error().code()));
      }
      g.topics().add(topic);
    }
    return g;
  }

  private static List<OffsetFetchResponseTopic> singleGroupForm(List<TopicAnswer> answers) {
    List<OffsetFetchResponseTopic> out = new ArrayList<>();
    for (TopicAnswer t : answers) {
      OffsetFetchResponseTopic topic = new OffsetFetchResponseTopic().setName(t.name());
      for (Answer a : t.partitions()) {
        topic.partitions().add(new OffsetFetchResponsePartition().setPartitionIndex(a.partition())
            .setCommittedOffset(a.offset()).setCommittedLeaderEpoch(-1).setMetadata(a.metadata())
            .setErrorCode(a.error().code()));
      }
      out.add(topic);
    }
    return out;
  }
}
