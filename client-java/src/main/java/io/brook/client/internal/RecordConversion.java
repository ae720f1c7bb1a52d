package io.brook.client.internal;

import io.brook.client.Deserializer;
import io.brook.client.Header;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.protocol.v1.Record;
import java.util.ArrayList;
import java.util.List;

/** From the wire's {@link Record} to the client's record types (the producer encodes records itself). */
public final class RecordConversion {
  private RecordConversion() {}

  public static <K, V> ConsumerRecord<K, V> toConsumerRecord(String topic, int partition, Record r,
      Deserializer<K> keys, Deserializer<V> values) {
    K key = r.hasKey() ? keys.deserialize(topic, r.getKey().toByteArray()) : null;
    V value = values.deserialize(topic, r.getValue().toByteArray());
    return new ConsumerRecord<>(topic, partition, r.getOffset(), r.getTimestampMs(), key, value, headers(r));
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
