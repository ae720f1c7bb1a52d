package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.brook.protocol.batch.Compression;
import io.brook.protocol.batch.KafkaBatchWriter;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.Header;
import io.brook.protocol.v1.InitProducerRequest;
import io.brook.protocol.v1.InitProducerResponse;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResponse;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.Record;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Produce with {@code kafka_batch} (D49, a Kafka record batch v2 as Brook's producers send it)
 * against the real broker process: every codec is stored and reads back exactly, the producer
 * fields in the Kafka header must be the request's, and each record is held to max.record.bytes (the
 * rule of Brook's producers, whatever form their batch takes).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KafkaBatchProduceIT {
  static final long T = 1_763_900_000_000L;

  @TempDir static Path dir;
  static BrokerProcess broker;
  static Wire wire;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    wire = new Wire(broker.channel());
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Three records (a header, an empty key, a key with an earlier timestamp) in one Kafka batch. */
  static ByteString threeRecords(Compression compression, long producerId, short epoch, int sequence) {
    KafkaBatchWriter w = new KafkaBatchWriter().begin(0, 0, compression).producer(producerId, epoch, sequence);
    w.record(T, null, 0, -1, utf8("first"), 0, 5, 1);
    w.header(utf8("h"), 0, 1, utf8("1"), 0, 1);
    w.record(T + 5, new byte[0], 0, 0, utf8("second"), 0, 6, 0);
    w.record(T - 300, utf8("k"), 0, 1, new byte[0], 0, 0, 0);
    return ByteString.copyFrom(Arrays.copyOf(w.array(), w.finish()));
  }

  static ByteString threeRecords(Compression compression) {
    return threeRecords(compression, -1, (short) -1, -1);
  }

  static ProduceBatch.Builder kafka(String topic, ByteString batch) {
    return ProduceBatch.newBuilder().setTopic(topic).setPartition(0).setKafkaBatch(batch);
  }

  static ProduceResult send(ProduceRequest.Builder request) {
    ProduceResponse response = wire.produce.produce(request.build());
    assertThat(response.getReadsKafkaBatch()).isTrue();
    return response.getResults(0);
  }

  static ProduceResult send(ProduceBatch.Builder batch) {
    return send(ProduceRequest.newBuilder().addBatches(batch));
  }

  @Test
  void aKafkaBatchInEveryCodecReadsBackExactly() {
    wire.create("kb-codecs", 1);
    long offset = 0;
    for (Compression c : Compression.values()) {
      ProduceResult r = send(kafka("kb-codecs", threeRecords(c)));
      assertThat(r.getErrorCode()).as(c + ": " + r.getErrorMessage()).isEqualTo(ErrorCode.ERROR_CODE_UNSPECIFIED);
      assertThat(r.getBaseOffset()).isEqualTo(offset);
      assertThat(r.getRecordCount()).isEqualTo(3);
      offset += 3;
    }
    List<Record> read = wire.readAll("kb-codecs", 0);
    assertThat(read).hasSize(3 * Compression.values().length);
    for (int i = 0; i < read.size(); i += 3) {
      assertThat(read.get(i)).isEqualTo(Record.newBuilder().setOffset(i).setTimestampMs(T)
          .setValue(ByteString.copyFromUtf8("first"))
          .addHeaders(Header.newBuilder().setKey("h").setValue(ByteString.copyFromUtf8("1"))).build());
      assertThat(read.get(i + 1)).isEqualTo(Record.newBuilder().setOffset(i + 1).setTimestampMs(T + 5)
          .setKey(ByteString.EMPTY).setValue(ByteString.copyFromUtf8("second")).build());
      assertThat(read.get(i + 2)).isEqualTo(Record.newBuilder().setOffset(i + 2).setTimestampMs(T - 300)
          .setKey(ByteString.copyFromUtf8("k")).build());
    }
  }

  @Test
  void theProducerFieldsInTheHeaderMustBeTheRequests() {
    wire.create("kb-producer", 1);
    refused(ProduceRequest.newBuilder().addBatches(kafka("kb-producer", threeRecords(Compression.NONE, 5, (short) 0, 0))),
        "has producer id 5, epoch 0, base sequence 0 in its header but the request has no producer_id");
    InitProducerResponse id = wire.produce.initProducer(InitProducerRequest.getDefaultInstance());
    long pid = id.getProducerId();
    short epoch = (short) id.getProducerEpoch();
    ProduceRequest.Builder idempotent = ProduceRequest.newBuilder().setProducerId(pid).setProducerEpoch(epoch);
    refused(idempotent.clone().addBatches(kafka("kb-producer", threeRecords(Compression.LZ4)).setBaseSequence(0)),
        "has producer id -1, epoch -1, base sequence -1 in its header but the request has producer_id " + pid);
    refused(idempotent.clone().addBatches(kafka("kb-producer", threeRecords(Compression.LZ4, pid, epoch, 3))
        .setBaseSequence(0)), "base sequence 3 in its header");
    refused(idempotent.clone().addBatches(kafka("kb-producer", threeRecords(Compression.LZ4, pid, (short) (epoch + 1),
        0)).setBaseSequence(0)), "epoch " + (epoch + 1));
    refused(ProduceRequest.newBuilder().addBatches(kafka("kb-producer", threeRecords(Compression.NONE))
        .addRecords(Wire.value("x"))), "one of records, encoded_records and kafka_batch");
    assertThat(wire.readAll("kb-producer", 0)).as("nothing of a refused batch is written").isEmpty();

    // Agreeing fields: written once, and a retry is answered with the first write.
    ProduceRequest.Builder good = idempotent.clone()
        .addBatches(kafka("kb-producer", threeRecords(Compression.ZSTD, pid, epoch, 0)).setBaseSequence(0));
    ProduceResult first = send(good);
    ProduceResult retry = send(good);
    assertThat(first.getErrorCode()).as(first.getErrorMessage()).isEqualTo(ErrorCode.ERROR_CODE_UNSPECIFIED);
    assertThat(retry.getDuplicate()).isTrue();
    assertThat(retry.getBaseOffset()).isEqualTo(first.getBaseOffset());
    assertThat(wire.readAll("kb-producer", 0)).hasSize(3);
  }

  @Test
  void aKafkaBatchOverGrpcIsHeldToMaxRecordBytesPerRecordAsBrooksOtherFormsAre() {
    wire.admin.createTopic(CreateTopicRequest.newBuilder().setName("kb-limits").setPartitions(1)
        .putConfig("max.message.bytes", "100").putConfig("max.record.bytes", "1000").build());
    KafkaBatchWriter w = new KafkaBatchWriter().begin(0, 0, Compression.NONE);
    w.record(T, null, new byte[900]);
    ProduceResult underRecordLimit = send(kafka("kb-limits", ByteString.copyFrom(Arrays.copyOf(w.array(), w.finish()))));
    assertThat(underRecordLimit.getErrorCode()).as("a batch over max.message.bytes whose record is under "
        + "max.record.bytes: " + underRecordLimit.getErrorMessage()).isEqualTo(ErrorCode.ERROR_CODE_UNSPECIFIED);
    // 2000 bytes compress to a few dozen: the record is still 2000 bytes, over max.record.bytes.
    w.begin(0, 0, Compression.GZIP).record(T, null, new byte[2000]);
    ProduceResult large = send(kafka("kb-limits", ByteString.copyFrom(Arrays.copyOf(w.array(), w.finish()))));
    assertThat(large.getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_RECORD_TOO_LARGE);
    assertThat(large.getErrorMessage()).contains("record 0", "max.record.bytes");
  }

  static void refused(ProduceRequest.Builder request, String why) {
    ProduceResult r = send(request);
    assertThat(r.getErrorCode()).as(r.getErrorMessage()).isEqualTo(ErrorCode.ERROR_CODE_INVALID_REQUEST);
    assertThat(r.getErrorMessage()).contains(why);
  }
}
