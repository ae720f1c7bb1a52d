package io.brook.broker.topics;

import static io.brook.broker.storage.KafkaBatches.batch;
import static io.brook.broker.storage.KafkaBatches.codec;
import static io.brook.broker.storage.KafkaBatches.rec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.IncomingBatch;
import io.brook.broker.records.KafkaRecords;
import io.brook.broker.records.ProducerStamp;
import io.brook.broker.storage.KafkaBatches;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.protocol.batch.KafkaBatch;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Map;
import java.util.zip.CRC32C;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The validator's Kafka case (D37, D46): every refusal Kafka's LogValidator makes that Brook makes
 * too, on batches kafka-clients' own MemoryRecordsBuilder builds, as its producer does.
 */
class KafkaBatchValidationTest {
  static final long T = 1_763_900_000_000L;
  @TempDir Path dir;
  TopicManager topics;
  Topic topic;
  final BatchValidator validator = new BatchValidator(5);

  @BeforeEach
  void open() {
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, MemoryLog::open,
        InstantSource.system());
    topics.recover();
    topic = topics.create("k", 1, Map.of("max.record.bytes", "1")); // gRPC's limit: not the Kafka form's
  }

  @AfterEach
  void close() {
    topics.close();
  }

  private KafkaRecords valid(byte[] b) {
    BatchValidator.ValidatedBatch v = validator.validate(topic, "k-0", new IncomingBatch.Kafka(b, 0, b.length));
    return v.kafka();
  }

  private void refused(byte[] b, BrokerError error, String... messageParts) {
    assertThatThrownBy(() -> validator.validate(topic, "k-0", new IncomingBatch.Kafka(b, 0, b.length)))
        .isInstanceOfSatisfying(BrokerException.class, e -> {
          assertThat(e.error()).isEqualTo(error);
          assertThat(e.getMessage()).contains(messageParts);
        });
  }

  /** Sets a big-endian int in the header and gives the batch a right CRC again: only that field is wrong. */
  private static byte[] withInt(byte[] b, int at, int value) {
    byte[] c = b.clone();
    KafkaBatch.putInt(c, at, value);
    KafkaBatch.recomputeCrc(c, 0, c.length, new CRC32C());
    return c;
  }

  @ParameterizedTest
  @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
  void aBatchOfEveryCodecIsTakenAsItCameWithItsCountTimesAndPayload(String name) {
    byte[] b = batch(codec(name), rec(T, "k1", "v1"), rec(T + 5, null, "value-2"), rec(T - 3, "k3", null));
    KafkaRecords k = valid(b);
    assertThat(k.array()).isSameAs(b); // nothing copied
    assertThat(k.count()).isEqualTo(3);
    assertThat(k.maxTimestamp()).isEqualTo(T + 5);
    assertThat(k.payloadBytes()).isEqualTo(2 + 2 + 7 + 2);
    assertThat(k.producer()).isEqualTo(ProducerStamp.NONE);
  }

  @Test
  void anIdempotentProducersFieldsBecomeItsStamp() {
    byte[] b = KafkaBatches.idempotent(Compression.NONE, 42, (short) 3, 17, rec(T, "a", "b"));
    assertThat(valid(b).producer()).isEqualTo(new ProducerStamp(42, (short) 3, 17));
    BatchValidator.ValidatedBatch v = validator.validate(topic, "k-0", new IncomingBatch.Kafka(b, 0, b.length));
    assertThat(v.producer()).isEqualTo(new ProducerStamp(42, (short) 3, 17));
  }

  @Test
  void aProducerIdWithoutEpochOrSequenceIsRefused() {
    byte[] b = KafkaBatches.idempotent(Compression.NONE, 42, (short) 3, 17, rec(T, "a", "b"));
    refused(withInt(b, KafkaBatch.BASE_SEQUENCE, -1), BrokerError.INVALID_RECORD,
        "producer id 42 with epoch 3 and base sequence -1");
  }

  @Test
  void anotherMagicIsRefused() {
    byte[] b = batch(Compression.NONE, rec(T, "a", "b"));
    b[KafkaBatch.MAGIC] = 1;
    refused(b, BrokerError.INVALID_RECORD, "malformed", "magic 1");
  }

  @Test
  void aFlippedBitFailsTheCrc() {
    byte[] b = batch(Compression.NONE, rec(T, "a", "some value"));
    b[b.length - 3] ^= 1;
    refused(b, BrokerError.INVALID_RECORD, "fails its CRC-32C");
  }

  @Test
  void aBatchLengthThatIsNotTheBytesIsRefused() {
    byte[] b = batch(Compression.NONE, rec(T, "a", "b"), rec(T, "c", "d"));
    refused(Arrays.copyOf(b, b.length - 1), BrokerError.INVALID_RECORD, "malformed", "batch length");
    refused(Arrays.copyOf(b, 40), BrokerError.INVALID_RECORD, "malformed", "40 bytes");
  }

  @Test
  void aCountTheRecordsDoNotMatchIsRefused() {
    byte[] b = batch(codec("lz4"), rec(T, "a", "b"), rec(T, "c", "d"), rec(T, "e", "f"));
    byte[] moreRecordsDeclared = withInt(withInt(b, KafkaBatch.RECORDS_COUNT, 4), KafkaBatch.LAST_OFFSET_DELTA, 3);
    refused(moreRecordsDeclared, BrokerError.INVALID_RECORD, "does not hold 4 well-formed records");
    byte[] fewerDeclared = withInt(withInt(b, KafkaBatch.RECORDS_COUNT, 2), KafkaBatch.LAST_OFFSET_DELTA, 1);
    refused(fewerDeclared, BrokerError.INVALID_RECORD, "does not hold 2 well-formed records");
  }

  @Test
  void aLastOffsetDeltaThatIsNotCountLessOneIsRefused() {
    byte[] b = batch(Compression.NONE, rec(T, "a", "b"), rec(T, "c", "d"));
    refused(withInt(b, KafkaBatch.LAST_OFFSET_DELTA, 5), BrokerError.INVALID_RECORD,
        "declares 2 records but a last offset delta of 5");
  }

  @Test
  void offsetDeltasWithAGapAreRefused() {
    // kafka-clients' builder with offsets 0 and 2: last offset delta 2 for two records
    java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(1024);
    var builder = org.apache.kafka.common.record.internal.MemoryRecords.builder(buffer, Compression.NONE,
        org.apache.kafka.common.record.TimestampType.CREATE_TIME, 0L);
    builder.appendWithOffset(0, T, "a".getBytes(), "b".getBytes());
    builder.appendWithOffset(2, T, "c".getBytes(), "d".getBytes());
    refused(KafkaBatches.toArray(builder.build()), BrokerError.INVALID_RECORD,
        "declares 2 records but a last offset delta of 2");
  }

  @Test
  void anEmptyBatchIsRefused() {
    byte[] b = batch(Compression.NONE, rec(T, "a", "b"));
    byte[] empty = withInt(withInt(b, KafkaBatch.RECORDS_COUNT, 0), KafkaBatch.LAST_OFFSET_DELTA, 0);
    refused(empty, BrokerError.INVALID_RECORD, "empty batch for k-0");
  }

  @Test
  void moreRecordsThanMaxBatchRecordsAreRefused() {
    byte[] b = batch(Compression.NONE, rec(T, "a", "1"), rec(T, "a", "2"), rec(T, "a", "3"), rec(T, "a", "4"),
        rec(T, "a", "5"), rec(T, "a", "6"));
    refused(b, BrokerError.BATCH_TOO_LARGE, "has 6 records; the broker takes at most 5 (max.batch.records)");
  }

  @Test
  void transactionalAndControlBatchesAreRefusedAsOutOfScope() {
    byte[] txn = KafkaBatches.build(Compression.NONE, 7, (short) 0, 0, true, rec(T, "a", "b"));
    refused(txn, BrokerError.INVALID_RECORD, "transactional", "Brook does not support transactions");
    byte[] control = txn.clone(); // a transaction marker, as a transaction coordinator writes it
    KafkaBatch.putShort(control, KafkaBatch.ATTRIBUTES, (short) (KafkaBatch.attributes(txn, 0) | KafkaBatch.CONTROL));
    KafkaBatch.recomputeCrc(control, 0, control.length, new CRC32C());
    refused(control, BrokerError.INVALID_RECORD, "control batch", "Brook does not support transactions");
  }

  @Test
  void theLogAppendTimeBitFromAProducerIsRefused() {
    byte[] b = batch(Compression.NONE, rec(T, "a", "b"));
    byte[] c = b.clone();
    KafkaBatch.putShort(c, KafkaBatch.ATTRIBUTES, (short) (KafkaBatch.attributes(c, 0) | KafkaBatch.TIMESTAMP_TYPE));
    KafkaBatch.recomputeCrc(c, 0, c.length, new CRC32C());
    refused(c, BrokerError.INVALID_RECORD, "log-append-time bit");
  }

  @Test
  void aNegativeRecordTimestampIsRefused() {
    // kafka-clients' builder refuses one itself: the base timestamp moved below zero makes the first -5
    byte[] b = batch(Compression.NONE, rec(T, "a", "b"), rec(T + 10, "c", "d"));
    byte[] c = b.clone();
    KafkaBatch.putLong(c, KafkaBatch.BASE_TIMESTAMP, -5);
    KafkaBatch.recomputeCrc(c, 0, c.length, new CRC32C());
    refused(c, BrokerError.INVALID_RECORD, "record 0 of the Kafka batch for k-0 has a negative timestamp -5");
  }

  @Test
  void maxMessageBytesLimitsTheBatchAsStoredAfterCompression() {
    topics.alterConfig("k", Map.of("max.message.bytes", "200"), java.util.List.of());
    String big = "x".repeat(5000);
    byte[] compressed = batch(codec("gzip"), rec(T, "a", big));
    assertThat(compressed.length).isLessThan(200); // 5000 bytes of record, far fewer stored
    assertThat(valid(compressed).payloadBytes()).isEqualTo(5001);
    byte[] plain = batch(Compression.NONE, rec(T, "a", big));
    refused(plain, BrokerError.RECORD_TOO_LARGE, "the Kafka batch for k-0 is " + plain.length
        + " bytes; topic k takes at most 200 (max.message.bytes)");
  }

  @Test
  void aBatchFromBrooksProducersIsHeldToMaxRecordBytesPerRecordNotToMaxMessageBytes() {
    topics.alterConfig("k", Map.of("max.message.bytes", "200", "max.record.bytes", "100"), java.util.List.of());
    byte[] manySmall = batch(Compression.NONE, rec(T, "a", "x".repeat(90)), rec(T, "b", "y".repeat(90)),
        rec(T, "c", "z".repeat(90)));
    assertThat(manySmall.length).as("over max.message.bytes as a whole").isGreaterThan(200);
    assertThat(validator.validate(topic, "k-0", new IncomingBatch.Kafka(manySmall, 0, manySmall.length,
        IncomingBatch.Kafka.SizeLimit.RECORD)).recordCount()).isEqualTo(3);
    byte[] oneLarge = batch(codec("gzip"), rec(T, "a", "x".repeat(500)));
    assertThat(oneLarge.length).as("under max.message.bytes as stored").isLessThan(200);
    assertThatThrownBy(() -> validator.validate(topic, "k-0", new IncomingBatch.Kafka(oneLarge, 0, oneLarge.length,
        IncomingBatch.Kafka.SizeLimit.RECORD))).isInstanceOfSatisfying(BrokerException.class, e -> {
          assertThat(e.error()).isEqualTo(BrokerError.RECORD_TOO_LARGE);
          assertThat(e.getMessage()).isEqualTo("record 0 of the batch for k-0 is 501 bytes; topic k takes at most 100"
              + " (max.record.bytes)");
        });
    refused(manySmall, BrokerError.RECORD_TOO_LARGE, "(max.message.bytes)"); // the Kafka door's rule
  }

  @Test
  void aCompressedBatchThatDecompressesPastTheReadersBoundIsRefusedAsTooLargeSoClientsSplitIt() {
    byte[] bomb = batch(codec("zstd"), rec(T, "a", "0".repeat(17 << 20)));
    assertThat(bomb.length).isLessThan(1 << 20);
    refused(bomb, BrokerError.RECORD_TOO_LARGE, "decompress to more than 16777216 bytes", "send smaller batches");
  }

  @Test
  void aKafkaBatchNamesNoPartitionSplit() {
    byte[] b = batch(Compression.NONE, rec(T, "a", "b"));
    BatchValidator.ValidatedBatch v = validator.validate(topic, "k-0", new IncomingBatch.Kafka(b, 0, b.length));
    assertThat(v.recordCount()).isEqualTo(1);
    assertThatThrownBy(() -> v.part(java.util.List.of(0))).isInstanceOf(IllegalStateException.class);
    assertThat(RecordBatch.CURRENT_MAGIC_VALUE).isEqualTo(KafkaBatch.MAGIC_V2);
  }
}
