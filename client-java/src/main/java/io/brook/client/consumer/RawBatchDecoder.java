package io.brook.client.consumer;

import com.google.protobuf.ByteOutput;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.brook.client.Deserializer;
import io.brook.client.TopicPartition;
import io.brook.client.internal.RecordConversion;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.batch.CorruptBatchException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Turns the raw stored batches of a fetch answer into client records: checks each batch's CRC32C
 * (as Kafka's consumer does with check.crcs), skips the records below the position, and reads the
 * {@code ByteString}'s own array. {@code toByteArray()} would copy every batch once more, and that was
 * half of the consumer's samples in a profile of the 100 B consume workload. Reused batch after
 * batch on the polling thread; nothing it is given is kept.
 */
final class RawBatchDecoder<K, V> extends ByteOutput {
  private final Deserializer<K> keys;
  private final Deserializer<V> values;
  private final BatchReader reader = new BatchReader();
  private final CRC32C crc = new CRC32C();
  private TopicPartition tp;
  private long position;
  private List<ConsumerRecord<K, V>> out;
  private int expected;
  private boolean decoded;

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
    this.tp = tp;
    this.position = position;
    this.out = out;
    expected = batch.size();
    decoded = false;
    try {
      UnsafeByteOperations.unsafeWriteTo(batch, this);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // never: nothing here does I/O
    }
    if (!decoded) {
      byte[] whole = batch.toByteArray(); // held in pieces: join them
      decode(whole, 0, whole.length);
    }
  }

  private void decode(byte[] value, int offset, int length) {
    reader.wrap(value, offset, length);
    if (!BatchFormat.checksumMatches(value, offset, length, crc)) {
      throw new CorruptBatchException("corrupt batch at offset " + reader.baseOffset() + ": its CRC32C does not match");
    }
    reader.skipTo(position);
    while (reader.next()) {
      out.add(RecordConversion.toConsumerRecord(tp.topic(), tp.partition(), reader, keys, values));
    }
  }

  @Override
  public void write(byte[] value, int offset, int length) {
    if (length == expected) { // the whole batch in one array; a piece of a rope is shorter
      decode(value, offset, length);
      decoded = true;
    }
  }

  @Override
  public void writeLazy(byte[] value, int offset, int length) {
    write(value, offset, length);
  }

  @Override
  public void write(ByteBuffer value) {
    if (value.remaining() == expected) {
      byte[] copy = new byte[expected];
      value.duplicate().get(copy);
      write(copy, 0, copy.length);
    }
  }

  @Override
  public void writeLazy(ByteBuffer value) {
    write(value);
  }

  @Override
  public void write(byte value) {
    // Only ever a piece of a batch held in pieces: decode() then joins them.
  }
}
