package io.brook.protocol.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.protocol.batch.KafkaRecords.TestRecord;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Bad Kafka batches and stored version 2 batches fail with a {@link CorruptBatchException} that
 * says what is wrong: never another exception, never a read past the batch, never an allocation
 * the data alone decides (a small compressed batch that decompresses to gigabytes).
 */
class KafkaBatchCorruptionTest {
  private final BatchReader reader = new BatchReader();

  @ParameterizedTest
  @EnumSource(value = Compression.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
  void recordsThatDecompressPastTheLimitAreRefused(Compression codec) {
    KafkaBatchWriter writer = new KafkaBatchWriter().begin(0, 0, codec);
    writer.record(1, null, new byte[1024 * 1024]);
    int end = writer.finish();
    assertThat(end).isLessThan(64 * 1024); // a megabyte of zeros compresses to little

    assertThatThrownBy(() -> new BatchReader().maxDecompressedBytes(64 * 1024).wrapKafka(writer.array(), 0, end))
        .isInstanceOf(CorruptBatchException.class)
        .hasMessageContaining("decompress to more than 65536 bytes, the reader's limit");

    BatchReader roomy = new BatchReader().wrapKafka(writer.array(), 0, end); // the default limit: 16 MiB
    assertThat(roomy.next()).isTrue();
    assertThat(roomy.valueLength()).isEqualTo(1024 * 1024);
  }

  @Test
  void aSnappyChunkThatClaimsTwoGigabytesIsRefusedBeforeAnyAllocation() {
    byte[] section = new byte[16 + 4 + 6];
    System.arraycopy(new byte[] {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1}, 0, section, 0, 16);
    KafkaBatch.putInt(section, 16, 6);
    // A raw snappy block starts with its uncompressed length as a varint: here 2^31 - 1.
    System.arraycopy(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 0}, 0, section, 20, 6);
    byte[] batch = withRecordsSection(Compression.SNAPPY, section, 1);

    assertThatThrownBy(() -> reader.wrapKafka(batch, 0, batch.length))
        .isInstanceOf(CorruptBatchException.class).hasMessageContaining("the reader's limit");
  }

  @ParameterizedTest
  @EnumSource(value = Compression.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
  void garbageAndCutShortCompressedRecordsAreCorrupt(Compression codec) {
    byte[] garbage = new byte[200];
    new Random(1).nextBytes(garbage);
    byte[] bad = withRecordsSection(codec, garbage, 3);
    assertThatThrownBy(() -> readAll(bad)).isInstanceOf(CorruptBatchException.class)
        .hasMessageContaining("corrupt");

    byte[] good = written(codec, KafkaRecords.sample().subList(0, 4));
    byte[] section = Arrays.copyOfRange(good, KafkaBatch.HEADER_SIZE, good.length);
    byte[] cut = withRecordsSection(codec, Arrays.copyOf(section, section.length / 2), 4);
    assertThatThrownBy(() -> readAll(cut)).isInstanceOf(CorruptBatchException.class);
  }

  @Test
  void headerFaultsAreNamed() {
    byte[] good = written(Compression.NONE, KafkaRecords.sample().subList(0, 3));

    assertThatThrownBy(() -> reader.wrapKafka(good, 0, good.length - 1))
        .isInstanceOf(CorruptBatchException.class).hasMessageContaining("batch length");
    assertThatThrownBy(() -> reader.wrapKafka(good, 0, 40))
        .isInstanceOf(CorruptBatchException.class).hasMessageContaining("less than its 61-byte header");

    byte[] magic1 = good.clone();
    magic1[KafkaBatch.MAGIC] = 1;
    assertThatThrownBy(() -> reader.wrapKafka(magic1, 0, magic1.length)).hasMessageContaining("magic 1");

    byte[] codec5 = good.clone();
    KafkaBatch.putShort(codec5, KafkaBatch.ATTRIBUTES, (short) 5);
    assertThatThrownBy(() -> reader.wrapKafka(codec5, 0, codec5.length))
        .isInstanceOf(CorruptBatchException.class).hasMessageContaining("unknown compression code 5");

    byte[] moreThanHeld = good.clone();
    KafkaBatch.putInt(moreThanHeld, KafkaBatch.RECORDS_COUNT, 4);
    KafkaBatch.putInt(moreThanHeld, KafkaBatch.LAST_OFFSET_DELTA, 3);
    assertThatThrownBy(() -> readAll(moreThanHeld)).isInstanceOf(CorruptBatchException.class)
        .hasMessageContaining("needs");

    byte[] countPastLastDelta = good.clone();
    KafkaBatch.putInt(countPastLastDelta, KafkaBatch.RECORDS_COUNT, 1_000_000);
    assertThatThrownBy(() -> reader.wrapKafka(countPastLastDelta, 0, countPastLastDelta.length))
        .isInstanceOf(CorruptBatchException.class).hasMessageContaining("record count 1000000");

    byte[] fewerThanHeld = good.clone();
    KafkaBatch.putInt(fewerThanHeld, KafkaBatch.RECORDS_COUNT, 2);
    assertThatThrownBy(() -> readAll(fewerThanHeld)).hasMessageContaining("bytes after its 2 records");

    byte[] lastDeltaTooSmall = good.clone();
    KafkaBatch.putInt(lastDeltaTooSmall, KafkaBatch.LAST_OFFSET_DELTA, 1);
    assertThatThrownBy(() -> readAll(lastDeltaTooSmall)).isInstanceOf(CorruptBatchException.class)
        .hasMessageContaining("record count 3, last offset delta 1");

    byte[] deltasNotRising = good.clone();
    // The first record's offset delta: after its 1-byte length, attributes and 1-byte timestamp delta.
    deltasNotRising[KafkaBatch.HEADER_SIZE + 3] = 2; // zig-zag 1
    assertThatThrownBy(() -> readAll(deltasNotRising)).isInstanceOf(CorruptBatchException.class)
        .hasMessageContaining("offset delta 1 after 1");

    byte[] storedTooShort = new byte[BatchFormat.V2_PREFIX_SIZE - 1];
    storedTooShort[0] = BatchFormat.VERSION_2;
    assertThatThrownBy(() -> reader.wrap(storedTooShort, 0, storedTooShort.length))
        .isInstanceOf(CorruptBatchException.class).hasMessageContaining("version 2");
    byte[] storedPrefixOnly = new byte[BatchFormat.V2_PREFIX_SIZE];
    storedPrefixOnly[0] = BatchFormat.VERSION_2;
    assertThatThrownBy(() -> reader.wrap(storedPrefixOnly, 0, storedPrefixOnly.length))
        .isInstanceOf(CorruptBatchException.class).hasMessageContaining("61-byte header");
  }

  @Test
  void aChecksumOfBytesTooShortForAHeaderIsFalseNotAnException() {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    byte[] v1 = TestBatches.ofValues(0, "x");
    assertThat(BatchFormat.checksumMatches(v1, 0, 10, crc)).isFalse();
    assertThat(BatchFormat.checksumMatches(new byte[] {BatchFormat.VERSION}, 0, 1, crc)).isFalse();
    assertThat(BatchFormat.checksumMatches(new byte[] {BatchFormat.VERSION_2}, 0, 1, crc)).isFalse();
    assertThat(BatchFormat.checksumMatches(v1, 0, v1.length, crc)).isTrue();
  }

  /** Random byte changes and cuts of valid batches of every codec: each read ends or fails as corrupt. */
  @ParameterizedTest
  @EnumSource(Compression.class)
  void randomDamageOnlyEverGivesCorruptBatchException(Compression codec) {
    byte[] good = written(codec, KafkaRecords.sample().subList(0, 3));
    Random random = new Random(codec.ordinal());
    for (int round = 0; round < 3_000; round++) {
      byte[] damaged;
      if (round % 4 == 0) { // a cut, with the length fixed so that the records are what is short
        int keep = KafkaBatch.HEADER_SIZE + random.nextInt(good.length - KafkaBatch.HEADER_SIZE);
        damaged = Arrays.copyOf(good, keep);
        KafkaBatch.putInt(damaged, KafkaBatch.BATCH_LENGTH, keep - KafkaBatch.LOG_OVERHEAD);
      } else {
        damaged = good.clone();
        for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
          damaged[KafkaBatch.ATTRIBUTES + random.nextInt(good.length - KafkaBatch.ATTRIBUTES)] = (byte) random.nextInt();
        }
      }
      try {
        readAll(damaged);
      } catch (CorruptBatchException expected) {
        // what bad bytes must give
      }
    }
  }

  private void readAll(byte[] batch) {
    reader.wrapKafka(batch, 0, batch.length);
    while (reader.next()) {
      reader.copyKey();
      reader.copyValue();
      for (int h = 0; h < reader.headerCount(); h++) {
        reader.copyHeaderName(h);
        reader.copyHeaderValue(h);
      }
    }
  }

  private static byte[] written(Compression codec, List<TestRecord> records) {
    KafkaBatchWriter writer = new KafkaBatchWriter().begin(0, 0, codec);
    KafkaRecords.write(writer, records);
    int end = writer.finish();
    return Arrays.copyOf(writer.array(), end);
  }

  /** A batch header that announces {@code count} records in {@code section}, compressed with {@code codec}. */
  private static byte[] withRecordsSection(Compression codec, byte[] section, int count) {
    KafkaBatchWriter writer = new KafkaBatchWriter().begin(0, 0, Compression.NONE);
    writer.finish();
    byte[] batch = Arrays.copyOf(writer.array(), KafkaBatch.HEADER_SIZE + section.length);
    System.arraycopy(section, 0, batch, KafkaBatch.HEADER_SIZE, section.length);
    KafkaBatch.putInt(batch, KafkaBatch.BATCH_LENGTH, batch.length - KafkaBatch.LOG_OVERHEAD);
    KafkaBatch.putShort(batch, KafkaBatch.ATTRIBUTES, (short) codec.code());
    KafkaBatch.putInt(batch, KafkaBatch.RECORDS_COUNT, count);
    KafkaBatch.putInt(batch, KafkaBatch.LAST_OFFSET_DELTA, count - 1);
    return batch;
  }
}
