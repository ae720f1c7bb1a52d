package io.brook.broker.it;

import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupPartition;
import io.brook.protocol.v1.GroupServiceGrpc;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** KafkaShareConsumers against a BrokerProcess, and the gRPC view of their ack group, for the share ITs. */
final class ShareKit {
  private final BrokerProcess broker;

  ShareKit(BrokerProcess broker) {
    this.broker = broker;
  }

  GroupServiceGrpc.GroupServiceBlockingStub groups() {
    return GroupServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  /** An ack group reading from the earliest offset, with short share timeouts unless {@code config} says. */
  void ackGroup(String name, String... config) {
    CreateGroupRequest.Builder b = CreateGroupRequest.newBuilder().setGroup(name).setMode(GroupMode.GROUP_MODE_ACK)
        .putConfig("auto.offset.reset", "earliest").putConfig("share.heartbeat.interval.ms", "500")
        .putConfig("share.session.timeout.ms", "5000");
    for (int i = 0; i < config.length; i += 2) {
      b.putConfig(config[i], config[i + 1]);
    }
    groups().createGroup(b.build());
  }

  GroupDescription describe(String group) {
    return groups().describeGroup(DescribeGroupRequest.newBuilder().setGroup(group).build()).getGroup();
  }

  static Properties props(String bootstrap, String group, Map<String, Object> extra) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", group);
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    p.putAll(extra);
    return p;
  }

  KafkaShareConsumer<String, String> consumer(String group, Map<String, Object> extra) {
    return new KafkaShareConsumer<>(props("127.0.0.1:" + broker.kafkaPort(), group, extra));
  }

  /** Polls until {@code count} records arrived or the time is up; each polled record goes to {@code each}. */
  static List<ConsumerRecord<String, String>> pollUntil(KafkaShareConsumer<String, String> c, int count, long timeoutMs,
      Consumer<ConsumerRecord<String, String>> each) {
    List<ConsumerRecord<String, String>> out = new ArrayList<>();
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (out.size() < count && System.currentTimeMillis() < deadline) {
      for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
        out.add(r);
        each.accept(r);
      }
    }
    return out;
  }

  long unsettled(String group) {
    return describe(group).getPartitionsList().stream().mapToLong(GroupPartition::getUnsettledRecords).sum();
  }

  /** Waits until every record of the group's partitions is settled (the lowest unsettled offset is the end). */
  void awaitAllSettled(String group, long timeoutMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    GroupDescription d = describe(group);
    while (System.currentTimeMillis() < deadline) {
      d = describe(group);
      if (allSettled(d)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("group " + group + " still has unsettled records: " + d.getPartitionsList());
  }

  static boolean allSettled(GroupDescription d) {
    return d.getPartitionsList().stream().allMatch(p -> p.getUnsettledRecords() == 0 && p.hasCommittedOffset()
        && p.getCommittedOffset() == p.getEndOffset());
  }

  /** Waits until the group has this many members. */
  void awaitMembers(String group, int n, long timeoutMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (System.currentTimeMillis() < deadline) {
      if (describe(group).getMembersCount() == n) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("group " + group + " never had " + n + " members: " + describe(group).getMembersList());
  }
}
