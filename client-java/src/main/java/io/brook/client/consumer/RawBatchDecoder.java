package io.brook.client.consumer;

import com.google.protobuf.ByteString;
import io.brook.client.Deserializer;
import io.brook.client.TopicPartition;
import io.brook.client.internal.RecordConversion;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.batch.ByteStringSlice;
import io.brook.protocol.batch.CorruptBatchException;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Turns the raw stored batches of a fetch answer into client records: checks each batch's CRC32C
 * (as Kafka's consumer does with check.crcs), skips the records below the position, and reads the
 * {@code ByteString}'s own array ({@link ByteStringSlice}). Batches of format version 1 and 2 (a
 * Kafka batch, compressed or not: the reader decompresses it into an array it reuses) are read
 * alike. A Kafka null value or header value reaches the application as an empty one, as the
 * records form of a fetch gives it (D45). Reused batch after batch on the polling thread; nothing
 * it is given is kept.
 */
final class RawBatchDecoder<K, V> {
  private final Deserializer<K> keys;
  private final Deserializer<V> values;
  private final BatchReader reader = new BatchReader();
  private final CRC32C crc = new CRC32C();

  RawBatchDecoder(Deserializer<K> keys, Deserializer<V> values) {
    this.keys = keys;
    this.values = values;
  }

  /**
   * Adds to {@code out} the records of {@code batch} from {@code position} on.
   *
   * @throws CorruptBatchException when the batch does not decode or fails its checksum
   */
  void decode(TopicPartition tp, ByteString batch, long position, List<ConsumerRecord<K, V>> out) {
    ByteStringSlice bytes = ByteStringSlice.of(batch);
    reader.wrapVerified(bytes.array(), bytes.offset(), bytes.length(), crc);
    reader.skipTo(position);
    while (reader.next()) {
      out.add(RecordConversion.toRecord(tp.topic(), tp.partition(), reader, keys, values, ConsumerRecord::new));
    }
  }
}
