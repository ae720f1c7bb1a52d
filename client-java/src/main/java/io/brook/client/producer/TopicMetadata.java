package io.brook.client.producer;

import io.brook.client.errors.BrokerUnavailableException;
import io.brook.client.errors.BrookException;
import io.brook.client.errors.BrookTimeoutException;
import io.brook.client.internal.Backoff;
import io.brook.client.internal.ErrorMapping;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.grpc.Channel;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** Partition counts of the topics the producer sends to, read with DescribeTopic and kept metadataMaxAgeMs. */
final class TopicMetadata {
  private record Entry(int partitions, long readNanos) {}

  private final AdminServiceGrpc.AdminServiceBlockingStub admin;
  private final ProducerConfig config;
  private final ConcurrentHashMap<String, Entry> topics = new ConcurrentHashMap<>();

  TopicMetadata(Channel channel, ProducerConfig config) {
    this.admin = AdminServiceGrpc.newBlockingStub(channel);
    this.config = config;
  }

  /**
   * The topic's partition count, read from the broker when not known or too old; while the broker
   * is unreachable it tries again until the deadline. Throws UnknownTopicException for a topic
   * that does not exist.
   */
  int partitionCount(String topic, long deadlineNanos) {
    Entry e = topics.get(topic);
    if (e != null && System.nanoTime() - e.readNanos < config.metadataMaxAgeMs * 1_000_000L) {
      return e.partitions;
    }
    Backoff backoff = new Backoff(config.retryBackoffMs, config.retryBackoffMaxMs);
    while (true) {
      long left = deadlineNanos - System.nanoTime();
      try {
        int count = admin.withDeadlineAfter(Math.max(1, Math.min(left, config.requestTimeoutMs * 1_000_000L)),
            TimeUnit.NANOSECONDS).describeTopic(DescribeTopicRequest.newBuilder().setName(topic).build())
            .getTopic().getPartitionsCount();
        topics.put(topic, new Entry(count, System.nanoTime()));
        return count;
      } catch (StatusRuntimeException ex) {
        BrookException error = ErrorMapping.fromStatus(ex);
        if (!error.isRetriable()) {
          throw error;
        }
        if (e != null) {
          return e.partitions; // the broker is away: the count it gave last is still the best guess
        }
        long pause = backoff.nextDelayMs() * 1_000_000L;
        if (System.nanoTime() + pause - deadlineNanos > 0) {
          throw error instanceof BrokerUnavailableException
              ? new BrookTimeoutException("TIMEOUT", "no partition count for topic " + topic + " within maxBlock ("
                  + config.maxBlockMs + " ms): " + error.getMessage(), error)
              : error;
        }
        try {
          TimeUnit.NANOSECONDS.sleep(pause);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          throw new BrookException("INTERRUPTED", "interrupted while reading topic " + topic, ie);
        }
      }
    }
  }

  void invalidate(String topic) {
    topics.remove(topic);
  }
}
