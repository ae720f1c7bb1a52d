package io.brook.client.internal;

import io.brook.client.Deserializer;
import io.brook.client.Header;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.v1.Record;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * From the wire's {@link Record}, or a raw batch's record, to the client's record type (the producer
 * encodes records itself). The caller names that type by its constructor ({@code ConsumerRecord::new}),
 * so this package does not depend on the consumer package that depends on it.
 */
public final class RecordConversion {
  private RecordConversion() {}

  /** Makes the client's record from a received record's fields, keys and values already deserialized. */
  @FunctionalInterface
  public interface RecordFactory<K, V, R> {
    R make(String topic, int partition, long offset, long timestampMs, K key, V value, List<Header> headers);
  }

  public static <K, V, R> R toRecord(String topic, int partition, Record r, Deserializer<K> keys,
      Deserializer<V> values, RecordFactory<K, V, R> factory) {
    K key = r.hasKey() ? keys.deserialize(topic, r.getKey().toByteArray()) : null;
    V value = values.deserialize(topic, r.getValue().toByteArray());
    return factory.make(topic, partition, r.getOffset(), r.getTimestampMs(), key, value, headers(r));
  }

  /** The record a {@link BatchReader} stands on (after {@code next()}), copying what it keeps. */
  public static <K, V, R> R toRecord(String topic, int partition, BatchReader r, Deserializer<K> keys,
      Deserializer<V> values, RecordFactory<K, V, R> factory) {
    K key = r.hasKey() ? keys.deserialize(topic, r.copyKey()) : null;
    V value = values.deserialize(topic, r.copyValue());
    List<Header> headers = List.of();
    if (r.headerCount() > 0) {
      Header[] hs = new Header[r.headerCount()];
      for (int i = 0; i < hs.length; i++) {
        // Names arrive as the producer's UTF-8; decoded as protobuf decodes a string field.
        hs[i] = new Header(new String(r.copyHeaderName(i), StandardCharsets.UTF_8), r.copyHeaderValue(i));
      }
      headers = List.of(hs);
    }
    return factory.make(topic, partition, r.offset(), r.timestamp(), key, value, headers);
  }

  public static List<Header> headers(Record r) {
    if (r.getHeadersCount() == 0) {
      return List.of();
    }
    List<Header> out = new ArrayList<>(r.getHeadersCount());
    for (io.brook.protocol.v1.Header h : r.getHeadersList()) {
      out.add(new Header(h.getKey(), h.getValue().toByteArray()));
    }
    return List.copyOf(out);
  }

}
