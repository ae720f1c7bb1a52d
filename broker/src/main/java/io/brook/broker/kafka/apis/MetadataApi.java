package io.brook.broker.kafka.apis;

import io.brook.broker.core.TopicAdmin;
import io.brook.broker.core.TopicInfo;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaListenerInfo;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.KafkaCaller;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBrokerCollection;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopicCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Metadata: the one node (leader, replica and ISR of every partition, leader epoch 0), the cluster id,
 * and the topics asked for by name or id (all of them when the list is null), with their ids.
 * A topic asked for by name that does not exist is created when auto.create.topics.enable is on and
 * the request allows it (always before v4), through the same checks as CreateTopics: name, limits,
 * disk guard. Under auth it shows only the topics the caller holds any permission on, and
 * auto-creation needs admin on the topic.
 */
public final class MetadataApi implements KafkaApi {
  private static final Logger log = LoggerFactory.getLogger(MetadataApi.class);
  private static final List<Integer> THE_NODE = List.of(0);

  private final TopicAdmin admin;
  private final boolean autoCreate;
  private final ConsumerOffsetsTopic offsetsTopic;

  /** @param autoCreate auto.create.topics.enable */
  public MetadataApi(TopicAdmin admin, boolean autoCreate, ConsumerOffsetsTopic offsetsTopic) {
    this.admin = admin;
    this.autoCreate = autoCreate;
    this.offsetsTopic = offsetsTopic;
  }

  @Override
  public ApiKeys key() {
    return ApiKeys.METADATA;
  }

  @Override
  public short minVersion() {
    return 0;
  }

  @Override
  public short maxVersion() {
    return 13;
  }

  @Override
  public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
    MetadataRequestData body = (MetadataRequestData) request.body();
    short version = request.apiVersion();
    MetadataResponseData response = new MetadataResponseData()
        .setThrottleTimeMs(0)
        .setBrokers(brokers(request.listener()))
        .setClusterId(request.listener().clusterId())
        .setControllerId(request.listener().nodeId());
    MetadataResponseTopicCollection topics = new MetadataResponseTopicCollection();
    boolean all = body.topics() == null || (version == 0 && body.topics().isEmpty()); // v0: empty means all
    KafkaCaller caller = request.caller();
    if (all) { // only what the caller may see, as gRPC's ListTopics
      admin.list().stream().filter(t -> caller.anyOnTopic(t.name())).forEach(t -> topics.add(topic(t)));
      if (offsetsTopic.listed() && caller.anyOnTopic(ConsumerOffsetsTopic.NAME)) { // internal, yet a topic name
        topics.add(ConsumerOffsetsTopic.metadata());
      }
    } else {
      boolean mayCreate = autoCreate && (version < 4 || body.allowAutoTopicCreation());
      for (MetadataRequestTopic asked : body.topics()) {
        // By id (v12+) when an id is given: Kafka's Admin leaves the name empty then, other clients null.
        boolean byId = !Uuid.ZERO_UUID.equals(asked.topicId()) && (asked.name() == null || asked.name().isEmpty());
        MetadataResponseTopic answer = byId ? byId(asked.topicId(), caller) : byName(asked.name(), mayCreate, caller);
        if (answer.name() == null || topics.find(answer.name()) == null) { // a name asked twice is answered once
          topics.add(answer);
        }
      }
    }
    return CompletableFuture.completedFuture(response.setTopics(topics));
  }

  static MetadataResponseBrokerCollection brokers(KafkaListenerInfo listener) {
    MetadataResponseBrokerCollection brokers = new MetadataResponseBrokerCollection();
    brokers.add(new MetadataResponseBroker().setNodeId(listener.nodeId()).setHost(listener.advertisedHost())
        .setPort(listener.advertisedPort()).setRack(null));
    return brokers;
  }

  private MetadataResponseTopic byName(String name, boolean mayCreate, KafkaCaller caller) {
    if (ConsumerOffsetsTopic.is(name)) {
      return caller.anyOnTopic(name) ? ConsumerOffsetsTopic.metadata() : error(name, Errors.TOPIC_AUTHORIZATION_FAILED);
    }
    try {
      TopicAdmin.checkName(name);
    } catch (BrokerException e) {
      return error(name, Errors.INVALID_TOPIC_EXCEPTION);
    }
    if (!caller.anyOnTopic(name)) { // whether it exists or not: nothing is told
      return error(name, Errors.TOPIC_AUTHORIZATION_FAILED);
    }
    try {
      return topic(admin.describe(name));
    } catch (BrokerException e) {
      if (e.error() != BrokerError.UNKNOWN_TOPIC) {
        return error(name, KafkaErrors.code(e.error()));
      }
    }
    if (!mayCreate) {
      return error(name, Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }
    if (!caller.adminTopic(name)) { // auto-creation is CreateTopics: admin on the topic
      return error(name, Errors.TOPIC_AUTHORIZATION_FAILED);
    }
    try {
      return topic(admin.create(name, 0, Map.of()));
    } catch (BrokerException e) {
      if (e.error() == BrokerError.TOPIC_EXISTS) { // created by another request meanwhile
        return byName(name, false, caller);
      }
      // Metadata has no message field: the client sees the code, the operator this line.
      log.info("Kafka client's auto-creation of topic {} refused: {}", name, e.getMessage());
      return error(name, KafkaErrors.code(e.error()));
    }
  }

  private MetadataResponseTopic byId(Uuid id, KafkaCaller caller) {
    if (ConsumerOffsetsTopic.ID.equals(id)) {
      return caller.anyOnTopic(ConsumerOffsetsTopic.NAME) ? ConsumerOffsetsTopic.metadata()
          : new MetadataResponseTopic().setName(null).setTopicId(id).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
    }
    TopicInfo t = Uuid.ZERO_UUID.equals(id) ? null : admin.describe(TopicIds.toBrook(id));
    if (t == null) {
      return new MetadataResponseTopic().setName(null).setTopicId(id).setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
    }
    if (!caller.anyOnTopic(t.name())) { // as Kafka: the id is not secret, the name is
      return new MetadataResponseTopic().setName(null).setTopicId(id)
          .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
    }
    return topic(t);
  }

  private static MetadataResponseTopic error(String name, Errors error) {
    return new MetadataResponseTopic().setName(name).setErrorCode(error.code()).setIsInternal(false);
  }

  private static MetadataResponseTopic topic(TopicInfo t) {
    List<MetadataResponsePartition> partitions = new ArrayList<>(t.partitions().size());
    for (TopicInfo.PartitionInfo p : t.partitions()) {
      partitions.add(new MetadataResponsePartition()
          .setErrorCode(Errors.NONE.code())
          .setPartitionIndex(p.partition())
          .setLeaderId(0)
          .setLeaderEpoch(0)
          .setReplicaNodes(THE_NODE)
          .setIsrNodes(THE_NODE)
          .setOfflineReplicas(List.of()));
    }
    return new MetadataResponseTopic()
        .setErrorCode(Errors.NONE.code())
        .setName(t.name())
        .setTopicId(TopicIds.toKafka(t.id()))
        .setIsInternal(false)
        .setPartitions(partitions);
  }
}
