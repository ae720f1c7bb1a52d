package io.brook.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.UnsafeByteOperations;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.BatchCodec;
import io.brook.broker.storage.BatchConversion;
import io.brook.broker.storage.ByteWriter;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.v1.FetchResponse;
import io.brook.protocol.v1.PartitionRecords;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** Only an answer of a single record may pass the cap: raw batches count their records, in either version. */
class AnswerCapTest {
  private static byte[] storedBatch(int records, int valueBytes) {
    List<LogRecord> list = new ArrayList<>();
    for (int i = 0; i < records; i++) {
      list.add(LogRecord.of(null, new byte[valueBytes], 1_000, List.of()));
    }
    ByteWriter out = new ByteWriter(1024);
    BatchCodec.encode(out, AppendBatch.of(list, 1_000), 0, Long.MIN_VALUE, 0, new CRC32C());
    return Arrays.copyOf(out.array(), out.position());
  }

  private static FetchResponse raw(byte[] batch) {
    return FetchResponse.newBuilder().addPartitions(PartitionRecords.newBuilder().setTopic("t")
        .addBatches(UnsafeByteOperations.unsafeWrap(batch))).build();
  }

  @Test
  void aSingleRecordOverTheCapPassesInEitherVersionAndTwoDoNot() {
    byte[] one = storedBatch(1, AnswerCap.BYTES + 100);
    assertThat(AnswerCap.check(raw(one))).as("version 2").isNull();
    assertThat(AnswerCap.check(raw(BatchConversion.toVersion1(one, new BatchReader())))).as("version 1").isNull();
    byte[] two = storedBatch(2, AnswerCap.BYTES / 2 + 100);
    assertThat(AnswerCap.check(raw(two))).isNotNull();
    assertThat(AnswerCap.check(raw(BatchConversion.toVersion1(two, new BatchReader())))).isNotNull();
  }
}
