package io.brook.client.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.errors.BrookException;
import io.brook.protocol.batch.Compression;
import io.brook.protocol.batch.TestBatches;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.PartitionRecords;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the fetcher turns raw batches into records, whatever shape protobuf hands them over in. */
class FetcherTest {
  static final TopicPartition TP = new TopicPartition("t", 0);

  final Fetcher<String, String> fetcher = new Fetcher<>(ConsumerConfig.builder().broker("127.0.0.1:1").build(), null,
      Serdes.stringDeserializer(), Serdes.stringDeserializer());

  static List<String> values(List<ConsumerRecord<String, String>> records) {
    return records.stream().map(r -> r.offset() + ":" + r.value()).toList();
  }

  static String[] many(String prefix, int n) {
    String[] out = new String[n];
    for (int i = 0; i < n; i++) {
      out[i] = prefix + i;
    }
    return out;
  }

  @Test
  void recordsBelowThePositionInTheFirstBatchAreSkipped() {
    PartitionRecords pr = PartitionRecords.newBuilder()
        .addBatches(ByteString.copyFrom(TestBatches.ofValues(10, "a", "b", "c")))
        .addBatches(ByteString.copyFrom(TestBatches.ofValues(13, "d")))
        .build();
    assertThat(values(fetcher.convert(TP, pr, 11))).containsExactly("11:b", "12:c", "13:d");
  }

  @Test
  void aBatchHeldInPiecesIsJoinedAndReadTheSame() {
    byte[] batch = TestBatches.ofValues(0, many("value-", 40));
    int half = batch.length / 2;
    ByteString rope = ByteString.copyFrom(batch, 0, half).concat(ByteString.copyFrom(batch, half, batch.length - half));
    assertThat(rope.getClass().getSimpleName()).as("a rope, not one array").contains("Rope");
    List<ConsumerRecord<String, String>> fromRope = fetcher.convert(TP,
        PartitionRecords.newBuilder().addBatches(rope).build(), 0);
    List<ConsumerRecord<String, String>> flat = fetcher.convert(TP,
        PartitionRecords.newBuilder().addBatches(ByteString.copyFrom(batch)).build(), 0);
    assertThat(values(fromRope)).hasSize(40).isEqualTo(values(flat));
    assertThat(fromRope.get(39).value()).isEqualTo("value-39");
  }

  @Test
  void aBatchInsideALargerBufferIsReadFromItsOwnBounds() {
    byte[] batch = TestBatches.ofValues(5, many("v", 3));
    byte[] padded = new byte[batch.length + 64];
    System.arraycopy(batch, 0, padded, 32, batch.length);
    ByteString slice = ByteString.copyFrom(padded).substring(32, 32 + batch.length);
    assertThat(values(fetcher.convert(TP, PartitionRecords.newBuilder().addBatches(slice).build(), 5)))
        .containsExactly("5:v0", "6:v1", "7:v2");
  }

  @Test
  void fetchesAskForRawBatchesOfBothVersions() {
    FetchRequest request = fetcher.newRequest().build();
    assertThat(request.getRawBatches()).isTrue();
    assertThat(request.getMaxBatchVersion()).isEqualTo(2);
  }

  @Test
  void aVersion2BatchIsReadBesideVersion1Batches() {
    PartitionRecords pr = PartitionRecords.newBuilder()
        .addBatches(ByteString.copyFrom(TestBatches.ofValues(10, "a", "b")))
        .addBatches(ByteString.copyFrom(TestBatches.storedV2(12, Compression.ZSTD, "c", "d")))
        .build();
    assertThat(values(fetcher.convert(TP, pr, 11))).containsExactly("11:b", "12:c", "13:d");
  }

  @Test
  void aBatchThatDoesNotDecodeIsAClearErrorNotACrash() {
    byte[] batch = TestBatches.ofValues(0, "x");
    batch[0] = 7;
    PartitionRecords pr = PartitionRecords.newBuilder().addBatches(ByteString.copyFrom(batch)).build();
    assertThatThrownBy(() -> fetcher.convert(TP, pr, 0)).isInstanceOf(BrookException.class)
        .hasMessageContaining("fetch of t-0 returned a batch that does not decode").hasMessageContaining("version 7");
  }

  @Test
  void aBatchWhoseRecordsDoNotMatchItsChecksumIsRefused() {
    byte[] batch = TestBatches.ofValues(0, "value");
    batch[batch.length - 2] ^= 1; // a bit of the value: lengths stay valid, only the CRC32C can tell
    PartitionRecords pr = PartitionRecords.newBuilder().addBatches(ByteString.copyFrom(batch)).build();
    assertThatThrownBy(() -> fetcher.convert(TP, pr, 0)).isInstanceOf(BrookException.class)
        .hasMessageContaining("CRC32C does not match");
  }
}
