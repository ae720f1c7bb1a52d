package io.brook.client.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.Compression;
import io.brook.protocol.batch.CorruptBatchException;
import io.brook.protocol.batch.KafkaBatchWriter;
import io.brook.protocol.batch.TestBatches;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The consumer reads stored version 2 batches (a Kafka batch in any codec) as it reads version 1. */
class RawBatchDecoderTest {
  static final TopicPartition TP = new TopicPartition("t", 0);

  final RawBatchDecoder<String, String> decoder = new RawBatchDecoder<>(Serdes.stringDeserializer(),
      Serdes.stringDeserializer());

  @ParameterizedTest
  @EnumSource(Compression.class)
  void aVersion2BatchIsReadFromThePositionWithKeysHeadersAndTimestamps(Compression codec) {
    KafkaBatchWriter writer = new KafkaBatchWriter().begin(BatchFormat.V2_PREFIX_SIZE, 20, codec);
    for (int i = 0; i < 5; i++) {
      byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
      byte[] value = ("value-" + i).repeat(1 + i * 3000).getBytes(StandardCharsets.UTF_8);
      writer.record(7_000 + i, key, 0, key.length, value, 0, value.length, 1);
      byte[] name = "trace".getBytes(StandardCharsets.UTF_8);
      writer.header(name, 0, name.length, new byte[] {(byte) i}, 0, 1);
    }
    int end = writer.finish();
    BatchFormat.writeV2Prefix(writer.array(), 0, 0, 7_004, 9_000, 0);
    ByteString batch = ByteString.copyFrom(writer.array(), 0, end);

    List<ConsumerRecord<String, String>> out = new ArrayList<>();
    decoder.decode(TP, batch, 22, out);
    assertThat(out).extracting(ConsumerRecord::offset).containsExactly(22L, 23L, 24L);
    ConsumerRecord<String, String> first = out.get(0);
    assertThat(first.key()).isEqualTo("key-2");
    assertThat(first.value()).isEqualTo("value-2".repeat(6001));
    assertThat(first.timestampMs()).isEqualTo(7_002);
    assertThat(first.headers()).hasSize(1);
    assertThat(first.headers().get(0).key()).isEqualTo("trace");
    assertThat(first.headers().get(0).value()).containsExactly(2);
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void aKafkaNullValueReachesTheApplicationAsAnEmptyOne(Compression codec) {
    List<ConsumerRecord<String, String>> out = new ArrayList<>();
    decoder.decode(TP, ByteString.copyFrom(TestBatches.storedV2(0, codec, "a", null, "c")), 0, out);
    assertThat(out).extracting(ConsumerRecord::value).containsExactly("a", "", "c");
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void aVersion2BatchThatFailsItsCrcIsRefusedBeforeItIsDecompressed(Compression codec) {
    byte[] batch = TestBatches.storedV2(40, codec, "value", "other");
    batch[batch.length - 2] ^= 1;
    assertThatThrownBy(() -> decoder.decode(TP, ByteString.copyFrom(batch), 40, new ArrayList<>()))
        .isInstanceOf(CorruptBatchException.class).hasMessage("corrupt batch at offset 40: its CRC32C does not match");
  }

  @ParameterizedTest
  @EnumSource(Compression.class)
  void versionsMixInOneAnswer(Compression codec) {
    List<ConsumerRecord<String, String>> out = new ArrayList<>();
    decoder.decode(TP, ByteString.copyFrom(TestBatches.ofValues(0, "v1-a", "v1-b")), 0, out);
    decoder.decode(TP, ByteString.copyFrom(TestBatches.storedV2(2, codec, "v2-c", "v2-d")), 0, out);
    decoder.decode(TP, ByteString.copyFrom(TestBatches.ofValues(4, "v1-e")), 0, out);
    assertThat(out).extracting(r -> r.offset() + ":" + r.value())
        .containsExactly("0:v1-a", "1:v1-b", "2:v2-c", "3:v2-d", "4:v1-e");
  }

  @ParameterizedTest
  @EnumSource(value = Compression.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
  void aCutShortVersion2BatchIsCorrupt(Compression codec) {
    byte[] batch = TestBatches.storedV2(0, codec, "value");
    byte[] cut = Arrays.copyOf(batch, batch.length - 3);
    assertThatThrownBy(() -> decoder.decode(TP, ByteString.copyFrom(cut), 0, new ArrayList<>()))
        .isInstanceOf(CorruptBatchException.class).hasMessageContaining("batch length");
  }
}
