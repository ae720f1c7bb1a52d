package io.brook.broker.kafka.apis;

import io.brook.broker.core.TopicAdmin;
import io.brook.broker.core.TopicInfo;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import io.brook.broker.kafka.apis.KafkaErrors.Failure;
import io.brook.broker.topics.TopicManager;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResultCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * CreateTopics, validate-only too: each topic through the core's create (name, count, config, limits,
 * disk guard), with Kafka's codes for what Kafka checks itself (name, partitions, replication, configs).
 * Brook is one node: replication factor 1 or -1 (the default), replica assignments only to node 0.
 */
public final class CreateTopicsApi implements KafkaApi {
  private final TopicAdmin admin;

  public CreateTopicsApi(TopicAdmin admin) {
    this.admin = admin;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.CREATE_TOPICS;
  }

  @Override
  public short minVersion() {
    return 2;
  }

  @Override
  public short maxVersion() {
    return 7;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    CreateTopicsRequestData body = (CreateTopicsRequestData) request.body();
    Map<String, Integer> asked = new HashMap<>();
    body.topics().forEach(t -> asked.merge(t.name(), 1, Integer::sum));
    CreatableTopicResultCollection results = new CreatableTopicResultCollection();
    for (CreatableTopic t : body.topics()) {
      if (results.find(t.name()) != null) {
        continue;
      }
      CreatableTopicResult result = asked.get(t.name()) > 1
          ? failed(t.name(), new Failure(Errors.INVALID_REQUEST, "topic " + t.name() + " is named more than once"))
          : create(t, body.validateOnly(), request.caller());
      results.add(result);
    }
    return CompletableFuture.completedFuture(new CreateTopicsResponseData().setThrottleTimeMs(0).setTopics(results));
  }

  private CreatableTopicResult create(CreatableTopic t, boolean validateOnly, KafkaCaller caller) {
    if (!caller.adminTopic(t.name())) {
      return failed(t.name(), Unauthorized.topic(caller, "admin", t.name()));
    }
    try {
      TopicAdmin.checkName(t.name());
    } catch (BrokerException e) {
      return failed(t.name(), new Failure(Errors.INVALID_TOPIC_EXCEPTION, e.getMessage()));
    }
    if (t.replicationFactor() != -1 && t.replicationFactor() != 1) {
      return failed(t.name(), new Failure(Errors.INVALID_REPLICATION_FACTOR, "Brook is a single node: the "
          + "replication factor must be 1 (or -1 for the default), got " + t.replicationFactor()));
    }
    int partitions;
    try {
      partitions = partitions(t);
    } catch (Refused r) {
      return failed(t.name(), r.failure);
    }
    Map<String, String> configs = new LinkedHashMap<>();
    for (CreatableTopicConfig c : t.configs()) {
      configs.put(c.name(), c.value());
    }
    try {
      Map<String, String> brook = KafkaTopicConfigs.toBrook(configs);
      if (validateOnly) {
        int count = admin.checkCreate(t.name(), partitions, brook);
        return new CreatableTopicResult().setName(t.name()).setErrorCode(Errors.NONE.code()).setNumPartitions(count)
            .setReplicationFactor((short) 1);
      }
      TopicInfo created = admin.create(t.name(), partitions, brook);
      return new CreatableTopicResult().setName(t.name()).setTopicId(TopicIds.toKafka(created.id()))
          .setErrorCode(Errors.NONE.code()).setNumPartitions(created.partitions().size())
          .setReplicationFactor((short) 1).setConfigs(configs(created));
    } catch (Refused r) {
      return failed(t.name(), r.failure);
    } catch (BrokerException e) {
      // The count was checked above: what the core still calls an invalid request is a config value.
      return failed(t.name(), KafkaErrors.of(e).invalidRequestAs(Errors.INVALID_CONFIG));
    }
  }

  /** The partition count for the core (0: default.partitions), from a count or a replica assignment. */
  private static int partitions(CreatableTopic t) {
    if (!t.assignments().isEmpty()) {
      if (t.numPartitions() != -1 || t.replicationFactor() != -1) {
        throw new Refused(new Failure(Errors.INVALID_REQUEST,
            "give either num_partitions and replication_factor or replica assignments, not both"));
      }
      int index = 0;
      for (CreatableReplicaAssignment a : t.assignments()) {
        ReplicaAssignments.check(a.partitionIndex(), index++, a.brokerIds());
      }
      return checkedCount(t.assignments().size());
    }
    if (t.numPartitions() == -1) {
      return 0;
    }
    return checkedCount(t.numPartitions());
  }

  static int checkedCount(int count) {
    if (count < 1 || count > TopicManager.MAX_PARTITIONS) {
      throw new Refused(new Failure(Errors.INVALID_PARTITIONS, "the partition count must be "
          + "between 1 and " + TopicManager.MAX_PARTITIONS + " (or -1 for default.partitions), got " + count));
    }
    return count;
  }

  private static List<CreatableTopicConfigs> configs(TopicInfo t) {
    List<CreatableTopicConfigs> out = new ArrayList<>();
    for (KafkaTopicConfigs.Entry e : KafkaTopicConfigs.describe(t)) {
      out.add(new CreatableTopicConfigs().setName(e.name()).setValue(e.value()).setReadOnly(e.readOnly())
          .setConfigSource(e.source().id()).setIsSensitive(false));
    }
    return out;
  }

  private static CreatableTopicResult failed(String name, Failure f) {
    return new CreatableTopicResult().setName(name).setErrorCode(f.code()).setErrorMessage(f.message());
  }
}
