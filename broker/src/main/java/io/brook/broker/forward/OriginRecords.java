package io.brook.broker.forward;

import io.brook.broker.records.LogRecord;
import io.brook.broker.records.RecordHeader;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * A Brook record as the Kafka record a route sends: key, value, headers and timestamp as stored, plus
 * the origin headers that make a duplicate downstream recognisable (the same origin twice).
 */
final class OriginRecords {
  static final String TOPIC = "brook.origin.topic";
  static final String PARTITION = "brook.origin.partition";
  static final String OFFSET = "brook.origin.offset";
  static final String CLUSTER = "brook.origin.cluster";

  private final byte[] clusterId;

  OriginRecords(String clusterId) {
    this.clusterId = clusterId.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * @param partition the target partition, or null for Kafka's default partitioner (by key)
   */
  ProducerRecord<byte[], byte[]> toKafka(String target, Integer partition, byte[] topicUtf8, int sourcePartition,
      LogRecord r) {
    RecordHeaders headers = new RecordHeaders();
    for (RecordHeader h : r.headers()) {
      headers.add(new String(h.nameUtf8(), StandardCharsets.UTF_8), h.value());
    }
    headers.add(TOPIC, topicUtf8);
    headers.add(PARTITION, Integer.toString(sourcePartition).getBytes(StandardCharsets.US_ASCII));
    headers.add(OFFSET, Long.toString(r.offset()).getBytes(StandardCharsets.US_ASCII));
    headers.add(CLUSTER, clusterId);
    return new ProducerRecord<>(target, partition, r.timestamp(), r.key(), r.value(), headers);
  }

  /**
   * At least what a record of {@code payloadBytes} (key, value, headers) takes in a Kafka batch with
   * the origin headers: their names and values, and every length and delta as a full varint.
   */
  static long encodedSizeBound(long payloadBytes, int topicBytes, int headers) {
    return payloadBytes + topicBytes + ORIGIN_OVERHEAD + 10L * headers;
  }

  /** The origin headers' names, the partition, offset and cluster id, and 20 varints of 5 bytes. */
  private static final int ORIGIN_OVERHEAD = TOPIC.length() + PARTITION.length() + OFFSET.length() + CLUSTER.length()
      + 10 + 19 + 22 + 100;

  /** Key, value and header bytes as Brook stores them: what forwarded bytes count. */
  static long size(LogRecord r) {
    long n = r.value().length + (r.key() == null ? 0 : r.key().length);
    for (RecordHeader h : r.headers()) {
      n += h.nameUtf8().length + (h.value() == null ? 0 : h.value().length);
    }
    return n;
  }
}
