package io.brook.client.producer;

import io.brook.client.errors.BrokerUnavailableException;
import io.brook.client.errors.BrookException;
import io.brook.client.errors.BrookTimeoutException;
import io.brook.client.internal.Backoff;
import io.brook.client.internal.ErrorMapping;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.TopicDescription;
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
    TopicDescription t = read(topic, deadlineNanos, e != null);
    return t == null ? e.partitions : t.getPartitionsCount();
  }

  /**
   * The topic as the broker describes it now (its partition count is kept too); while the broker
   * is unreachable it tries again until the deadline. Throws UnknownTopicException for a topic
   * that does not exist.
   */
  TopicDescription describe(String topic, long deadlineNanos) {
    return read(topic, deadlineNanos, false);
  }

  /**
   * The description, or null when the broker is away and {@code staleKnown}: the count it gave
   * last is still the best guess.
   */
  private TopicDescription read(String topic, long deadlineNanos, boolean staleKnown) {
    Backoff backoff = new Backoff(config.retryBackoffMs, config.retryBackoffMaxMs);
    while (true) {
      long left = deadlineNanos - System.nanoTime();
      try {
        TopicDescription t = admin.withDeadlineAfter(Math.max(1, Math.min(left, config.requestTimeoutMs * 1_000_000L)),
            TimeUnit.NANOSECONDS).describeTopic(DescribeTopicRequest.newBuilder().setName(topic).build()).getTopic();
        topics.put(topic, new Entry(t.getPartitionsCount(), System.nanoTime()));
        return t;
      } catch (StatusRuntimeException ex) {
        BrookException error = ErrorMapping.fromStatus(ex);
        if (!error.isRetriable()) {
          throw error;
        }
        if (staleKnown) {
          return null;
        }
        long pause = backoff.nextDelayMs() * 1_000_000L;
        if (System.nanoTime() + pause - deadlineNanos > 0) {
          throw error instanceof BrokerUnavailableException
              ? new BrookTimeoutException("TIMEOUT", "could not read topic " + topic + " within maxBlock ("
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
