package io.brook.perf.harness;

import java.time.Duration;
import java.util.Map;

/**
 * One system under test as the workloads see it: Brook through its Java client or Kafka through
 * kafka-clients. Every workload is written once against this interface, so both systems run exactly
 * the same loop with the same settings ({@link ClientSettings}).
 */
interface SystemClient extends AutoCloseable {
  /** The label in the results: brook, kafka, brook-no-group-commit, kafka-flush. */
  String name();

  /** The server process behind this client (for its CPU time and RSS). */
  Server server();

  void createTopic(String topic, int partitions) throws Exception;

  /** Frees the disk a run used; best effort. */
  void deleteTopic(String topic);

  Producer producer(String topic, ClientSettings settings);

  /** A consumer assigned every partition of the topic, reading from the beginning, in no group. */
  Consumer consumer(String topic, int partitions, ClientSettings settings);

  /** Makes the queue-semantics group read from the earliest record: an ack group or a share group. */
  void prepareAckGroup(String group, String topic) throws Exception;

  /** One member of that group: Brook ack consumer, Kafka share consumer. */
  AckReader ackReader(String group, String topic, ClientSettings settings);

  /**
   * One member of a Kafka consumer group subscribed to the topic (kafka-clients {@code subscribe}), its
   * protocol from {@code settings.extra()} (group.protocol: classic by default). {@code assigned} hears the
   * member's whole assignment after each change. Kafka clients only: Brook's own client has no such group.
   */
  default GroupMember groupMember(String group, String topic, ClientSettings settings, AssignmentListener assigned) {
    throw new UnsupportedOperationException(name() + ": no Kafka consumer group member");
  }

  @Override
  void close();

  /** A group member; poll drives its joins and rebalances as well as its fetches. */
  interface GroupMember extends AutoCloseable {
    int poll(Duration timeout, RecordSink sink);

    @Override
    void close();
  }

  interface AssignmentListener {
    /** The member's partitions now (empty while it has none); called on the member's poll thread. */
    void assigned(java.util.Set<Integer> partitions);
  }

  /** Sends keyless records; the completion runs on the client's thread. */
  interface Producer extends AutoCloseable {
    void send(byte[] value, Completion done);

    /** A record to one partition (the 1,000-partitions workload touches each). */
    void send(int partition, byte[] value, Completion done);

    void flush();

    @Override
    void close();
  }

  interface Completion {
    void done(Throwable error);
  }

  interface Consumer extends AutoCloseable {
    /** Hands each record to the sink; returns how many. */
    int poll(Duration timeout, RecordSink sink);

    @Override
    void close();
  }

  interface AckReader extends AutoCloseable {
    /** Hands each record to the sink and acknowledges it (accept). */
    int pollAndAck(Duration timeout, RecordSink sink);

    /** Sends the acknowledgements still held by the client. */
    void flush();

    @Override
    void close();
  }

  interface RecordSink {
    void accept(int partition, long offset, byte[] value, int deliveryAttempt);
  }

  /** The client settings both sides get (Kafka names in brackets). */
  record ClientSettings(int batchSize, int lingerMs, boolean synced, int maxPollRecords, int fetchMaxBytes,
      Map<String, String> extra) {
    static ClientSettings defaults() {
      return new ClientSettings(131_072, 5, false, 2_000, 4 << 20, Map.of());
    }

    ClientSettings linger(int ms) {
      return new ClientSettings(batchSize, ms, synced, maxPollRecords, fetchMaxBytes, extra);
    }

    ClientSettings synced(boolean on) {
      return new ClientSettings(batchSize, lingerMs, on, maxPollRecords, fetchMaxBytes, extra);
    }

    ClientSettings extra(Map<String, String> more) {
      return new ClientSettings(batchSize, lingerMs, synced, maxPollRecords, fetchMaxBytes, more);
    }
  }
}
