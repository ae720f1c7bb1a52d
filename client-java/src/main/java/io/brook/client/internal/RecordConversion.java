package io.brook.client.internal;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.brook.client.Deserializer;
import io.brook.client.Header;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.protocol.v1.Record;
import java.util.ArrayList;
import java.util.List;

/** Between the wire's {@link Record} and the client's record types. */
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

  /**
   * A record to produce. A null key means no key; a null timestamp means the broker's time. The
   * serialized key and value are wrapped, not copied (the hot path of send): a serializer hands
   * over its arrays.
   */
  public static Record toProto(byte[] key, byte[] value, List<Header> headers, Long timestampMs) {
    Record.Builder b = Record.newBuilder()
        .setValue(value == null ? ByteString.EMPTY : UnsafeByteOperations.unsafeWrap(value));
    if (key != null) {
      b.setKey(UnsafeByteOperations.unsafeWrap(key));
    }
    if (timestampMs != null) {
      b.setTimestampMs(timestampMs);
    }
    for (Header h : headers) {
      b.addHeaders(io.brook.protocol.v1.Header.newBuilder().setKey(h.key()).setValue(ByteString.copyFrom(h.value())));
    }
    return b.build();
  }
}
