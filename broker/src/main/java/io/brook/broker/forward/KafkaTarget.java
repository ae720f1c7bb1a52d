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
  /** The producer's batch.size unless the route sets one: one partition's share of a round. */
  static final int DEFAULT_BATCH_BYTES = 1 << 20;
  /** Most bytes one round reads over all partitions. */
  private static final int ROUND_BYTES = 16 << 20;
  private static final long MAX_LINGER_MS = 60_000;

  private final ForwardRouteConfig route;
  private final KafkaProducer<byte[], byte[]> producer;
  private final Admin admin;
  /** Target partition counts, looked up again after {@link #PARTITIONS_TTL_MS} (partitions may be added). */
  private final Map<String, long[]> partitions = new HashMap<>();
  private static final long PARTITIONS_TTL_MS = 5 * 60_000;
  /** The admin calls' limit: 30 s, or the route's max.block.ms when it set one (as long as a send may block). */
  private final long adminTimeoutMs;

  KafkaTarget(ForwardRouteConfig route) {
    this.route = route;
    Map<String, Object> producerConfig = producerConfig(route);
    adminTimeoutMs = setting(route, ProducerConfig.MAX_BLOCK_MS_CONFIG, ADMIN_TIMEOUT_MS);
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
    c.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    c.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(DEFAULT_BATCH_BYTES));
    // Above any record Brook takes (max.message.bytes) with its origin headers: the producer's own size
    // check must not refuse what Kafka's broker may take; Kafka's message.max.bytes still decides.
    c.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, String.valueOf(16 << 20));
    // A round sends each partition's records as one batch, sent at the round's flush (D68): a linger as
    // long as the delivery timeout allows keeps the sender from taking half a batch while the round is
    // still being added, which would let a later batch be written after an earlier one failed.
    long delivery = setting(route, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
    long request = setting(route, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
    c.put(ProducerConfig.LINGER_MS_CONFIG, String.valueOf(Math.max(0, Math.min(MAX_LINGER_MS, delivery - request))));
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

  /**
   * What one round may read (D68): per partition at most what fits one producer batch (estimated
   * encoded size, so a round never makes two batches of a partition), in all at most half the
   * producer's buffer.
   */
  record RoundLimits(int partitionBytes, int roundBytes) {}

  static RoundLimits roundLimits(ForwardRouteConfig route) {
    long batch = setting(route, ProducerConfig.BATCH_SIZE_CONFIG, DEFAULT_BATCH_BYTES);
    long buffer = setting(route, ProducerConfig.BUFFER_MEMORY_CONFIG, 32L << 20);
    return new RoundLimits((int) Math.max(1, batch * 8 / 10), (int) Math.max(1, Math.min(ROUND_BYTES, buffer / 2)));
  }

  /** A numeric kafka.* setting of the route, or {@code otherwise}; the start checked that it is a number. */
  private static long setting(ForwardRouteConfig route, String key, long otherwise) {
    String v = route.kafka().get(key);
    try {
      return v == null ? otherwise : Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      return otherwise; // a ${...} reference: ProducerConfig resolves it; the defaults do for our estimates
    }
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
    long[] known = partitions.get(topic);
    long now = System.currentTimeMillis();
    if (known != null && now - known[1] < PARTITIONS_TTL_MS) {
      return (int) known[0];
    }
    int count;
    try {
      count = describe(topic);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || !route.createTarget()) {
        throw e;
      }
      try {
        try {
          admin.createTopics(List.of(new NewTopic(topic, Optional.of(sourcePartitions), Optional.empty()))).all()
              .get(adminTimeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException timeout) {
          throw new org.apache.kafka.common.errors.TimeoutException("no answer from Kafka within " + adminTimeoutMs
              + " ms to create topic " + topic);
        }
        log.info("Forward route {} created Kafka topic {} with {} partition(s)", route.name(), topic, sourcePartitions);
      } catch (ExecutionException created) {
        if (!(created.getCause() instanceof TopicExistsException)) {
          throw created;
        }
      }
      count = describe(topic);
    }
    partitions.put(topic, new long[] {count, now});
    return count;
  }

  private int describe(String topic) throws ExecutionException, InterruptedException {
    try {
      TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames()
          .get(adminTimeoutMs, TimeUnit.MILLISECONDS).get(topic);
      return d.partitions().size();
    } catch (TimeoutException e) {
      throw new org.apache.kafka.common.errors.TimeoutException("no answer from Kafka within " + adminTimeoutMs
          + " ms to describe topic " + topic);
    }
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
