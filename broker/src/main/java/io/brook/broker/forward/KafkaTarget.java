package io.brook.broker.forward;

import io.brook.broker.config.ForwardRouteConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A route's Kafka cluster: one idempotent producer (acks=all) and an admin client for the target
 * topics' partition counts (and to create an absent one). A new one is made after every failure, so
 * a producer that gave up on a batch is never reused.
 */
final class KafkaTarget implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaTarget.class);
  /** How long an admin call (describe, create a topic) may take before the round counts as failed. */
  private static final long ADMIN_TIMEOUT_MS = 30_000;

  private final ForwardRouteConfig route;
  private final KafkaProducer<byte[], byte[]> producer;
  private final Admin admin;
  private final Map<String, Integer> partitions = new HashMap<>();

  KafkaTarget(ForwardRouteConfig route) {
    this.route = route;
    Map<String, Object> producerConfig = producerConfig(route);
    producer = new KafkaProducer<>(producerConfig);
    try {
      admin = Admin.create(adminConfig(producerConfig));
    } catch (RuntimeException e) {
      producer.close(Duration.ZERO);
      throw e;
    }
  }

  /**
   * The producer's settings: the route's kafka.* ones, then what the forwarder's guarantees need
   * (acks=all, idempotence, byte serializers), and Kafka's file, directory and env config providers
   * (so secrets can come from mounted files) unless the route names its own.
   */
  static Map<String, Object> producerConfig(ForwardRouteConfig route) {
    Map<String, Object> c = new HashMap<>();
    c.put(ProducerConfig.CLIENT_ID_CONFIG, "brook-forward-" + route.name());
    c.put(ProducerConfig.LINGER_MS_CONFIG, "10");
    c.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    c.putAll(route.kafka());
    if (!route.kafka().containsKey("config.providers")) {
      c.put("config.providers", "file,dir,env");
      c.put("config.providers.file.class", "org.apache.kafka.common.config.provider.FileConfigProvider");
      c.put("config.providers.dir.class", "org.apache.kafka.common.config.provider.DirectoryConfigProvider");
      c.put("config.providers.env.class", "org.apache.kafka.common.config.provider.EnvVarConfigProvider");
    }
    c.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, route.bootstrap());
    c.put(ProducerConfig.ACKS_CONFIG, "all");
    c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
    return c;
  }

  /** The producer's settings an admin client knows (security, timeouts, providers), so it logs no warnings. */
  private static Map<String, Object> adminConfig(Map<String, Object> producerConfig) {
    Map<String, Object> c = new HashMap<>();
    producerConfig.forEach((k, v) -> {
      if (AdminClientConfig.configNames().contains(k) || k.startsWith("config.providers")) {
        c.put(k, v);
      }
    });
    c.put(AdminClientConfig.CLIENT_ID_CONFIG, producerConfig.get(ProducerConfig.CLIENT_ID_CONFIG) + "-admin");
    return c;
  }

  /**
   * The target topic's partition count, created with {@code sourcePartitions} partitions when absent
   * and the route allows it.
   *
   * @throws Exception what the admin call failed with (the round fails and backs off)
   */
  int partitionCount(String topic, int sourcePartitions) throws Exception {
    Integer known = partitions.get(topic);
    if (known != null) {
      return known;
    }
    int count;
    try {
      count = describe(topic);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || !route.createTarget()) {
        throw e;
      }
      try {
        admin.createTopics(List.of(new NewTopic(topic, Optional.of(sourcePartitions), Optional.empty()))).all()
            .get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        log.info("Forward route {} created Kafka topic {} with {} partition(s)", route.name(), topic, sourcePartitions);
      } catch (ExecutionException created) {
        if (!(created.getCause() instanceof TopicExistsException)) {
          throw created;
        }
      }
      count = describe(topic);
    }
    partitions.put(topic, count);
    return count;
  }

  private int describe(String topic) throws ExecutionException, InterruptedException, TimeoutException {
    TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames()
        .get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS).get(topic);
    return d.partitions().size();
  }

  void send(ProducerRecord<byte[], byte[]> record, Callback callback) {
    producer.send(record, callback);
  }

  /** Blocks until every record sent so far is acknowledged or failed. */
  void flush() {
    producer.flush();
  }

  /** Gives the producer {@code grace} to finish what it holds, then drops it. */
  void close(Duration grace) {
    try {
      producer.close(grace);
    } finally {
      admin.close(Duration.ZERO);
    }
  }

  @Override
  public void close() {
    close(Duration.ZERO);
  }
}
