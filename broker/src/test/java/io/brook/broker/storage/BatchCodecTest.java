package io.brook.broker.storage;

import io.brook.broker.records.LogRecord;
import io.brook.broker.records.RecordHeader;
import io.brook.broker.records.ProducerStamp;
import io.brook.protocol.batch.BatchReader;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The stored-batch codec: what appends write (version 2) decodes to what was appended. */
class BatchCodecTest {
  final ByteWriter out = new ByteWriter(16);
  final CRC32C crc = new CRC32C();

  @Test
  void recordsOfEverySizeRoundTripWithMultiByteLengthPrefixes() {
    Random random = new Random(3);
    List<LogRecord> records = new ArrayList<>();
    for (int size : new int[] {0, 1, 126, 127, 128, 129, 16_383, 16_384, 70_000}) {
      byte[] value = new byte[size];
      random.nextBytes(value);
      byte[] key = size % 2 == 0 ? null : Arrays.copyOf(value, Math.min(size, 300));
      records.add(LogRecord.of(key, value, 1_000 + size, List.of(RecordHeader.of("n" + size, new byte[size % 200]))));
    }
    BatchHeader h = BatchCodec.encode(out, AppendBatch.of(records, 5_000), 42, Long.MIN_VALUE, 0, crc);
    byte[] stored = Arrays.copyOf(out.array(), out.position());
    assertThat(h.storedLength()).isEqualTo(stored.length);
    assertThat(BatchCodec.checksumMatches(stored, 0, stored.length, crc)).isTrue();
    List<LogRecord> back = new ArrayList<>();
    BatchCodec.decode(stored, 0, stored.length, 42, 100, Integer.MAX_VALUE, back, new BatchReader());
    assertThat(back).hasSize(records.size());
    for (int i = 0; i < records.size(); i++) {
      assertThat(back.get(i).offset()).isEqualTo(42 + i);
      assertThat(back.get(i).value()).isEqualTo(records.get(i).value());
      assertThat(back.get(i).key()).isEqualTo(records.get(i).key());
      assertThat(back.get(i).timestamp()).isEqualTo(records.get(i).timestamp());
      assertThat(back.get(i).headers().get(0).value()).isEqualTo(records.get(i).headers().get(0).value());
    }
    assertThat(BatchCodec.producer(stored, 0).isNone()).isTrue();
  }

  @Test
  void producerFieldsAreStoredInTheKafkaHeaderAndNoneIsMinusOne() {
    List<LogRecord> one = List.of(LogRecord.of(null, new byte[] {1}, -1, List.of()));
    int plain = BatchCodec.encode(out, AppendBatch.of(one, 1), 0, 0, 0, crc).storedLength();
    assertThat(BatchCodec.producer(Arrays.copyOf(out.array(), out.position()), 0).isNone()).isTrue();
    BatchHeader h = BatchCodec.encode(out,
        new AppendBatch(one, 1, false, new ProducerStamp(77, (short) 3, 1234)), 0, 0, 0, crc);
    byte[] stored = Arrays.copyOf(out.array(), out.position());
    assertThat(h.storedLength()).as("version 2 has room for them in every header").isEqualTo(plain);
    assertThat(BatchCodec.producer(stored, 0)).isEqualTo(new ProducerStamp(77, (short) 3, 1234));
    List<LogRecord> back = new ArrayList<>();
    BatchCodec.decode(stored, 0, stored.length, 0, 10, 100, back, new BatchReader());
    assertThat(back.get(0).value()).containsExactly(1);
  }

  @Test
  void aFlippedBitFailsTheChecksumAndATruncatedBatchIsReportedCorrupt() {
    BatchCodec.encode(out, AppendBatch.of(List.of(LogRecord.of(null, new byte[100], 5, List.of())), 5), 0, 0, 0, crc);
    byte[] stored = Arrays.copyOf(out.array(), out.position());
    stored[stored.length - 3] ^= 1;
    assertThat(BatchCodec.checksumMatches(stored, 0, stored.length, crc)).isFalse();
    assertThatThrownBy(() -> BatchCodec.decode(stored, 0, stored.length - 20, 0, 10, 1000, new ArrayList<>(),
        new BatchReader())).isInstanceOf(StorageException.class).hasMessageContaining("corrupt Kafka batch");
  }
}
