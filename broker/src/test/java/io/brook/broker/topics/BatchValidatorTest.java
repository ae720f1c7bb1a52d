package io.brook.broker.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.UnsafeByteOperations;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.IncomingBatch;
import io.brook.broker.records.LogRecord;
import io.brook.broker.records.RecordHeader;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.protocol.batch.TestBatches;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one validator: what each form is refused for, and what a validated batch carries on. */
class BatchValidatorTest {
  static final long T = 1_763_900_000_000L;
  @TempDir Path dir;
  TopicManager topics;
  Topic topic;
  final BatchValidator validator = new BatchValidator(3);

  @BeforeEach
  void open() {
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, MemoryLog::open,
        InstantSource.system());
    topics.recover();
    topic = topics.create("v", 2, Map.of("max.record.bytes", "10"));
  }

  @AfterEach
  void close() {
    topics.close();
  }

  static LogRecord record(String key, String value, long timestamp) {
    return LogRecord.of(key == null ? null : key.getBytes(StandardCharsets.UTF_8),
        value.getBytes(StandardCharsets.UTF_8), timestamp, List.of());
  }

  void refused(IncomingBatch batch, BrokerError error, String message) {
    assertThatThrownBy(() -> validator.validate(topic, "v-1", batch)).isInstanceOfSatisfying(BrokerException.class,
        e -> {
          assertThat(e.error()).isEqualTo(error);
          assertThat(e.getMessage()).isEqualTo(message);
        });
  }

  @Test
  void listedRecordsAreRefusedWithTheRecordAndLimitNamed() {
    long none = IncomingBatch.Listed.NO_TIMESTAMP;
    refused(new IncomingBatch.Listed(List.of()), BrokerError.INVALID_RECORD,
        "empty batch for v-1: send at least one record");
    refused(new IncomingBatch.Listed(List.of(record(null, "a", none), record(null, "b", none),
        record(null, "c", none), record(null, "d", none))), BrokerError.BATCH_TOO_LARGE,
        "batch for v-1 has 4 records; the broker takes at most 3 (max.batch.records)");
    refused(new IncomingBatch.Listed(List.of(record(null, "a", none), record("key", "12345678", none))),
        BrokerError.RECORD_TOO_LARGE, "record 1 of the batch for v-1 is 11 bytes; topic v takes at most 10 "
        + "(max.record.bytes)");
    // A timestamp given negative is refused before anything else, even -1 (which the log reads as "none").
    refused(new IncomingBatch.Listed(List.of(record(null, "a", none), record(null, "b", -1), record(null, "c", none),
        record(null, "d", none))), BrokerError.INVALID_RECORD,
        "record 1 has a negative timestamp -1 (leave timestamp_ms unset for the broker's time)");
  }

  @Test
  void anEncodedSectionIsReadOnceAndRefusedWithItsReason() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    TestBatches.record(out, 0, null, "a".getBytes(StandardCharsets.UTF_8), new String[] {"h", "1"});
    TestBatches.record(out, 7, "k".getBytes(StandardCharsets.UTF_8), "bc".getBytes(StandardCharsets.UTF_8),
        new String[0]);
    byte[] two = out.toByteArray();
    BatchValidator.ValidatedBatch ok = validator.validate(topic, "v-1", new IncomingBatch.Encoded(two, 0, two.length,
        2, T));
    assertThat(ok.recordCount()).isEqualTo(2);
    assertThat(ok.records()).as("an encoded batch is not a list").isNull();
    refused(new IncomingBatch.Encoded(two, 0, two.length, 0, T), BrokerError.INVALID_RECORD,
        "empty batch for v-1: encoded_records.record_count is 0; send at least one record");
    refused(new IncomingBatch.Encoded(two, 0, two.length, 4, T), BrokerError.BATCH_TOO_LARGE,
        "batch for v-1 has 4 records; the broker takes at most 3 (max.batch.records)");
    assertThatThrownBy(() -> validator.validate(topic, "v-1", new IncomingBatch.Encoded(two, 0, two.length - 1, 2, T)))
        .hasMessageStartingWith("encoded_records of the batch for v-1 do not hold 2 well-formed records: ");
    refused(new IncomingBatch.Encoded(two, 0, two.length, 2, -1), BrokerError.INVALID_RECORD,
        "record 0 of the batch for v-1 has a negative timestamp -1");
  }

  @Test
  void aBatchTheBrokerPartitionsIsCheckedWholeAndSplitWithoutAnotherCheck() {
    long none = IncomingBatch.Listed.NO_TIMESTAMP;
    BatchValidator.ValidatedBatch whole = validator.validate(topic, "v", new IncomingBatch.Listed(List.of(
        record("a", "1", none), record("b", "22", none), record("c", "333", T))));
    BatchValidator.ValidatedBatch part = whole.part(List.of(0, 2));
    assertThat(part.recordCount()).isEqualTo(2);
    assertThat(part.records()).extracting(r -> new String(r.value(), StandardCharsets.UTF_8)).containsExactly("1", "333");
    assertThat(part.topic()).isSameAs(topic);
    Partition p = topic.partition(1);
    assertThat(p.append(part, T).recordCount()).isEqualTo(2);
    assertThat(p.read(0, 10, 1000).records()).extracting(LogRecord::timestamp).containsExactly(T, T);
  }

  @Test
  void aDeadLetterIsHeldToNoneOfItsTopicsLimits() {
    Partition p = topic.partition(0);
    LogRecord large = LogRecord.of(null, new byte[100], T, List.of(new RecordHeader(
        "origin".getBytes(StandardCharsets.UTF_8), new byte[5])));
    assertThat(p.appendDeadLetter(large, T).recordCount()).isEqualTo(1);
  }

  /** Header names inside an encoded section follow protobuf's rule for a string, byte for byte. */
  @Test
  void utf8AgreesWithProtobufOnEveryShapeOfInput() {
    Random random = new Random(24);
    byte[][] edges = {{}, {0x41}, {(byte) 0xc2, (byte) 0x80}, {(byte) 0xc1, (byte) 0xbf},
        {(byte) 0xe0, (byte) 0x9f, (byte) 0xbf}, {(byte) 0xe0, (byte) 0xa0, (byte) 0x80},
        {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, {(byte) 0xed, (byte) 0x9f, (byte) 0xbf},
        {(byte) 0xf0, (byte) 0x8f, (byte) 0xbf, (byte) 0xbf}, {(byte) 0xf4, (byte) 0x8f, (byte) 0xbf, (byte) 0xbf},
        {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, {(byte) 0xf5, (byte) 0x80, (byte) 0x80, (byte) 0x80},
        {(byte) 0xe2, (byte) 0x82}, {(byte) 0x80}, {(byte) 0xff}};
    for (byte[] b : edges) {
      assertThat(Utf8.isValid(b, 0, b.length)).as(java.util.Arrays.toString(b))
          .isEqualTo(UnsafeByteOperations.unsafeWrap(b).isValidUtf8());
    }
    for (int i = 0; i < 200_000; i++) {
      byte[] b = new byte[random.nextInt(6)];
      for (int k = 0; k < b.length; k++) { // mostly lead and continuation bytes, where the rules are
        b[k] = (byte) (random.nextInt(4) == 0 ? random.nextInt(256) : 0x80 + random.nextInt(0x80));
      }
      int from = b.length == 0 ? 0 : random.nextInt(b.length);
      int length = b.length - from;
      assertThat(Utf8.isValid(b, from, length)).as(java.util.Arrays.toString(b) + " from " + from)
          .isEqualTo(UnsafeByteOperations.unsafeWrap(b, from, length).isValidUtf8());
    }
  }
}
