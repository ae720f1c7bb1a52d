package io.brook.protocol.batch;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Over batches {@link TestBatches} writes by hand from the layout, so it pins the format too. */
class BatchReaderTest {
  private final BatchReader reader = new BatchReader();

  @Test
  void readsKeysValuesHeadersOffsetsAndTimestampDeltas() {
    ByteArrayOutputStream records = new ByteArrayOutputStream();
    TestBatches.record(records, 0, null, bytes(300, 7), new String[0]);
    TestBatches.record(records, -5, new byte[0], new byte[0], new String[] {"trace", "ab", "trace", ""});
    TestBatches.record(records, 1_000_000, "k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8),
        new String[0]);
    byte[] batch = TestBatches.batch(0, 3, 40, 1_000, records.toByteArray());

    reader.wrap(batch, 0, batch.length);
    assertThat(reader.baseOffset()).isEqualTo(40);
    assertThat(reader.nextOffset()).isEqualTo(43);
    assertThat(BatchFormat.baseOffset(batch, 0)).isEqualTo(40);
    assertThat(BatchFormat.recordCount(batch, 0)).isEqualTo(3);
    assertThat(BatchFormat.nextOffset(batch, 0)).isEqualTo(43);

    assertThat(reader.next()).isTrue();
    assertThat(reader.offset()).isEqualTo(40);
    assertThat(reader.timestamp()).isEqualTo(1_000);
    assertThat(reader.hasKey()).isFalse();
    assertThat(reader.copyKey()).isNull();
    assertThat(reader.copyValue()).isEqualTo(bytes(300, 7));
    assertThat(reader.headerCount()).isZero();

    assertThat(reader.next()).isTrue();
    assertThat(reader.offset()).isEqualTo(41);
    assertThat(reader.timestamp()).isEqualTo(995);
    assertThat(reader.hasKey()).isTrue();
    assertThat(reader.copyKey()).isEmpty();
    assertThat(reader.copyValue()).isEmpty();
    assertThat(reader.headerCount()).isEqualTo(2);
    assertThat(new String(reader.copyHeaderName(1), StandardCharsets.UTF_8)).isEqualTo("trace");
    assertThat(reader.copyHeaderValue(0)).isEqualTo("ab".getBytes(StandardCharsets.UTF_8));
    assertThat(reader.copyHeaderValue(1)).isEmpty();

    assertThat(reader.next()).isTrue();
    assertThat(reader.timestamp()).isEqualTo(1_001_000);
    assertThat(reader.copyKey()).containsExactly('k');
    assertThat(reader.next()).isFalse();
  }

  @Test
  void skipToLandsOnTheRequestedOffsetOrPastTheBatch() {
    ByteArrayOutputStream records = new ByteArrayOutputStream();
    for (int i = 0; i < 5; i++) {
      TestBatches.record(records, i, null, new byte[] {(byte) i}, new String[0]);
    }
    byte[] batch = TestBatches.batch(0, 5, 100, 0, records.toByteArray());
    reader.wrap(batch, 0, batch.length).skipTo(103);
    assertThat(reader.next()).isTrue();
    assertThat(reader.offset()).isEqualTo(103);
    assertThat(reader.copyValue()).containsExactly(3);

    reader.wrap(batch, 0, batch.length).skipTo(99);
    assertThat(reader.next()).isTrue();
    assertThat(reader.offset()).isEqualTo(100);

    reader.wrap(batch, 0, batch.length).skipTo(200);
    assertThat(reader.next()).isFalse();
  }

  @Test
  void logAppendTimeBatchesGiveEveryRecordTheAppendTime() {
    ByteArrayOutputStream records = new ByteArrayOutputStream();
    TestBatches.record(records, 0, null, new byte[1], new String[0]);
    TestBatches.record(records, 9, null, new byte[1], new String[0]);
    byte[] batch = TestBatches.batch(BatchFormat.ATTR_LOG_APPEND_TIME, 2, 0, 50, records.toByteArray());
    ByteBuffer.wrap(batch).order(ByteOrder.LITTLE_ENDIAN).putLong(BatchFormat.APPEND_TIME, 777);
    reader.wrap(batch, 0, batch.length);
    assertThat(reader.next()).isTrue();
    assertThat(reader.timestamp()).isEqualTo(777);
    assertThat(reader.next()).isTrue();
    assertThat(reader.timestamp()).isEqualTo(777);
  }

  @Test
  void aBatchPlacedInsideALargerArrayIsReadFromItsOwnBounds() {
    ByteArrayOutputStream records = new ByteArrayOutputStream();
    TestBatches.record(records, 0, null, new byte[] {42}, new String[0]);
    byte[] batch = TestBatches.batch(0, 1, 0, 0, records.toByteArray());
    byte[] padded = new byte[batch.length + 20];
    System.arraycopy(batch, 0, padded, 10, batch.length);
    reader.wrap(padded, 10, batch.length);
    assertThat(reader.next()).isTrue();
    assertThat(reader.copyValue()).containsExactly(42);
    assertThat(reader.next()).isFalse();
  }

  @Test
  void corruptBatchesFailWithAMessageAndNeverReadPastTheirBounds() {
    ByteArrayOutputStream records = new ByteArrayOutputStream();
    TestBatches.record(records, 0, "key".getBytes(StandardCharsets.UTF_8), new byte[50], new String[0]);
    byte[] good = TestBatches.batch(0, 1, 0, 0, records.toByteArray());

    assertThatThrownBy(() -> reader.wrap(good, 0, good.length - 1))
        .isInstanceOf(CorruptBatchException.class).hasMessageContaining("bytes of records");
    assertThatThrownBy(() -> reader.wrap(good, 0, 10)).isInstanceOf(CorruptBatchException.class);
    assertThatThrownBy(() -> reader.wrap(good, 5, good.length)).isInstanceOf(CorruptBatchException.class)
        .hasMessageContaining("outside");

    byte[] badVersion = good.clone();
    badVersion[0] = 9;
    assertThatThrownBy(() -> reader.wrap(badVersion, 0, badVersion.length))
        .hasMessageContaining("version 9");

    byte[] moreRecordsThanHeld = good.clone();
    ByteBuffer.wrap(moreRecordsThanHeld).order(ByteOrder.LITTLE_ENDIAN).putInt(BatchFormat.RECORD_COUNT, 2);
    reader.wrap(moreRecordsThanHeld, 0, moreRecordsThanHeld.length);
    assertThat(reader.next()).isTrue();
    assertThatThrownBy(reader::next).isInstanceOf(CorruptBatchException.class).hasMessageContaining("needs");

    byte[] fewerRecordsThanHeld = good.clone();
    ByteBuffer.wrap(fewerRecordsThanHeld).order(ByteOrder.LITTLE_ENDIAN).putInt(BatchFormat.RECORD_COUNT, 0);
    reader.wrap(fewerRecordsThanHeld, 0, fewerRecordsThanHeld.length);
    assertThatThrownBy(reader::next).hasMessageContaining("bytes after its 0 records");

    byte[] valueTooLong = good.clone();
    int valueLengthAt = BatchFormat.HEADER_SIZE + 1 + 1 + 1 + 3; // body length, delta, key field, key
    valueTooLong[valueLengthAt] = 120;
    reader.wrap(valueTooLong, 0, valueTooLong.length);
    assertThatThrownBy(reader::next).isInstanceOf(CorruptBatchException.class).hasMessageContaining("needs 120 bytes");
  }

  private static byte[] bytes(int n, int seed) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * seed);
    }
    return b;
  }

  @Test
  void readsABareRecordsSectionAsAProducerSendsItAndCountsItsPayload() {
    ByteArrayOutputStream records = new ByteArrayOutputStream();
    TestBatches.record(records, 0, null, bytes(10, 1), new String[] {"ab", "cde"});
    TestBatches.record(records, -7, "key".getBytes(StandardCharsets.UTF_8), bytes(4, 2), new String[0]);
    byte[] section = records.toByteArray();
    byte[] inside = new byte[section.length + 9];
    System.arraycopy(section, 0, inside, 5, section.length);

    reader.wrapRecords(inside, 5, section.length, 2, 2_000);
    assertThat(reader.next()).isTrue();
    assertThat(reader.offset()).isZero();
    assertThat(reader.timestamp()).isEqualTo(2_000);
    assertThat(reader.payloadSize()).isEqualTo(10 + 2 + 3);
    assertThat(reader.next()).isTrue();
    assertThat(reader.timestamp()).isEqualTo(1_993);
    assertThat(reader.payloadSize()).isEqualTo(3 + 4);
    assertThat(reader.next()).isFalse();

    assertThatThrownBy(() -> { // one record more in the bytes than the count says
      reader.wrapRecords(inside, 5, section.length, 1, 0);
      while (reader.next()) {
        // read on to the end
      }
    }).isInstanceOf(CorruptBatchException.class).hasMessageContaining("bytes after its 1 records");
    assertThatThrownBy(() -> reader.wrapRecords(inside, 5, inside.length, 2, 0))
        .isInstanceOf(CorruptBatchException.class).hasMessageContaining("outside");
  }
}
