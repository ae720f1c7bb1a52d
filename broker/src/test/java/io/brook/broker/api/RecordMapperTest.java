package io.brook.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.records.LogRecord;
import io.brook.broker.records.RecordHeader;
import io.brook.protocol.v1.PartitionRecords;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A record's size in an answer, computed without building it, is exactly the size of the one built. */
class RecordMapperTest {
  @Test
  void theComputedWireSizeIsTheBuiltRecordsSize() {
    Random random = new Random(24);
    for (int i = 0; i < 20_000; i++) {
      List<RecordHeader> headers = new ArrayList<>();
      for (int h = random.nextInt(3); h > 0; h--) {
        headers.add(new RecordHeader(bytes(random, 4), bytes(random, 300)));
      }
      long offset = random.nextInt(3) == 0 ? 0 : random.nextLong() >>> random.nextInt(64);
      long timestamp = random.nextInt(3) == 0 ? 0 : random.nextLong() >>> random.nextInt(64);
      LogRecord r = new LogRecord(offset, timestamp, random.nextBoolean() ? null : bytes(random, 200),
          bytes(random, 20_000), headers);
      assertThat(GrpcAnswerSize.INSTANCE.recordSize(r))
          .as("record %d", i)
          .isEqualTo(AnswerCap.fieldSize(PartitionRecords.RECORDS_FIELD_NUMBER, RecordMapper.toWire(r)));
    }
  }

  private static byte[] bytes(Random random, int max) {
    byte[] b = new byte[random.nextInt(4) == 0 ? 0 : random.nextInt(max)];
    for (int k = 0; k < b.length; k++) {
      b[k] = (byte) ('a' + random.nextInt(26)); // header names go out as a string: keep them UTF-8
    }
    return b;
  }
}
