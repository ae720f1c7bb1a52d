package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.brook.protocol.batch.TestBatches;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.EncodedRecords;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.Header;
import io.brook.protocol.v1.InitProducerRequest;
import io.brook.protocol.v1.InitProducerResponse;
import io.brook.protocol.v1.ProduceBatch;
import io.brook.protocol.v1.ProduceRequest;
import io.brook.protocol.v1.ProduceResult;
import io.brook.protocol.v1.Record;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Produce with {@code encoded_records} (records already in the stored format, as the Java producer
 * sends them) against the real broker process: what is stored reads back exactly, and a section
 * that does not hold what it says is refused whole with its reason.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EncodedProduceIT {
  static final long T = 1_763_900_000_000L;

  @TempDir static Path dir;
  static BrokerProcess broker;
  static Wire wire;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"), "--set", "max.batch.records=50");
    wire = new Wire(broker.channel());
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A section of three records: keyless with a header, an empty key, a key with an earlier timestamp. */
  static ByteString threeRecords() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    TestBatches.record(out, 0, null, utf8("first"), new String[] {"h", "1", "\u00e9t\u00e9", ""});
    TestBatches.record(out, 5, new byte[0], utf8("second"), new String[0]);
    TestBatches.record(out, -300, utf8("k"), new byte[0], new String[0]);
    return ByteString.copyFrom(out.toByteArray());
  }

  static ProduceBatch.Builder encoded(String topic, int count, ByteString section) {
    return ProduceBatch.newBuilder().setTopic(topic).setPartition(0).setEncodedRecords(EncodedRecords.newBuilder()
        .setRecordCount(count).setBaseTimestampMs(T).setRecords(section));
  }

  static ProduceResult send(ProduceBatch.Builder batch) {
    return wire.produce.produce(ProduceRequest.newBuilder().addBatches(batch).build()).getResults(0);
  }

  @Test
  void encodedRecordsReadBackExactlyAsTheProducerWroteThem() throws Exception {
    wire.create("enc-same", 1);
    wire.produce("enc-same", 0, List.of(Wire.value("listed")));
    ProduceResult r = send(encoded("enc-same", 3, threeRecords()));
    assertThat(r.getErrorCode()).as(r.getErrorMessage()).isEqualTo(ErrorCode.ERROR_CODE_UNSPECIFIED);
    assertThat(r.getBaseOffset()).isEqualTo(1);
    assertThat(r.getRecordCount()).isEqualTo(3);
    assertThat(r.getLogAppendTime()).isFalse();

    List<Record> read = wire.readAll("enc-same", 0);
    assertThat(read).hasSize(4);
    assertThat(read.get(1)).isEqualTo(Record.newBuilder().setOffset(1).setTimestampMs(T)
        .setValue(ByteString.copyFromUtf8("first"))
        .addHeaders(Header.newBuilder().setKey("h").setValue(ByteString.copyFromUtf8("1")))
        .addHeaders(Header.newBuilder().setKey("\u00e9t\u00e9")).build());
    assertThat(read.get(2)).isEqualTo(Record.newBuilder().setOffset(2).setTimestampMs(T + 5).setKey(ByteString.EMPTY)
        .setValue(ByteString.copyFromUtf8("second")).build());
    assertThat(read.get(3)).isEqualTo(Record.newBuilder().setOffset(3).setTimestampMs(T - 300)
        .setKey(ByteString.copyFromUtf8("k")).build());
    assertThat(topicMetric("brook_produced_records_total", "enc-same")).isEqualTo(4);
    // "listed" (6) + "first", "h", "1" and the name of 5 bytes of UTF-8 (12) + "second" (6) + "k" (1)
    assertThat(topicMetric("brook_produced_bytes_total", "enc-same")).isEqualTo(6 + 12 + 6 + 1);
  }

  @Test
  void aSectionThatDoesNotHoldWhatItSaysIsRefusedWholeWithItsReason() {
    wire.admin.createTopic(CreateTopicRequest.newBuilder().setName("enc-bad").setPartitions(1)
        .putConfig("max.record.bytes", "100").build());
    ByteString good = threeRecords();
    refused(encoded("enc-bad", 2, good), ErrorCode.ERROR_CODE_INVALID_RECORD, "bytes after its 2 records");
    refused(encoded("enc-bad", 4, good), ErrorCode.ERROR_CODE_INVALID_RECORD, "needs 1 bytes");
    refused(encoded("enc-bad", 3, good.substring(0, good.size() - 1)), ErrorCode.ERROR_CODE_INVALID_RECORD,
        "do not hold 3 well-formed records");
    refused(encoded("enc-bad", 0, ByteString.EMPTY), ErrorCode.ERROR_CODE_INVALID_RECORD, "at least one record");
    refused(encoded("enc-bad", 51, good), ErrorCode.ERROR_CODE_BATCH_TOO_LARGE, "at most 50 (max.batch.records)");
    refused(encoded("enc-bad", 3, good).clearPartition(), ErrorCode.ERROR_CODE_INVALID_REQUEST,
        "must name its partition");
    refused(encoded("enc-bad", 3, good).addRecords(Wire.value("x")), ErrorCode.ERROR_CODE_INVALID_REQUEST,
        "records or encoded_records, not both");
    refused(single(out -> TestBatches.record(out, -T - 1, null, utf8("v"), new String[0])),
        ErrorCode.ERROR_CODE_INVALID_RECORD, "negative timestamp -1");
    refused(single(out -> TestBatches.record(out, 0, null, new byte[101], new String[0])),
        ErrorCode.ERROR_CODE_RECORD_TOO_LARGE, "is 101 bytes");
    // A header name that is not UTF-8 would make the record unreadable as a brook.v1.Header.
    ByteArrayOutputStream bad = new ByteArrayOutputStream();
    TestBatches.record(bad, 0, null, utf8("v"), new String[] {"\u00ff", "x"});
    byte[] badName = bad.toByteArray();
    badName[badName.length - 4] = (byte) 0xff; // the name "\u00ff" is 0xc3 0xbf: 0xff 0xbf is not UTF-8
    badName[badName.length - 3] = (byte) 0xbf;
    refused(encoded("enc-bad", 1, ByteString.copyFrom(badName)), ErrorCode.ERROR_CODE_INVALID_RECORD,
        "header name that is not UTF-8");

    assertThat(wire.readAll("enc-bad", 0)).as("nothing of a refused batch is written").isEmpty();
    assertThat(send(encoded("enc-bad", 3, good)).getBaseOffset()).isZero();
  }

  @Test
  void aLogAppendTimeTopicStampsEveryRecordAndSaysSo() {
    wire.admin.createTopic(CreateTopicRequest.newBuilder().setName("enc-lat").setPartitions(1)
        .putConfig("message.timestamp.type", "LogAppendTime").build());
    ProduceResult r = send(encoded("enc-lat", 3, threeRecords()));
    assertThat(r.getLogAppendTime()).isTrue();
    assertThat(wire.readAll("enc-lat", 0)).extracting(Record::getTimestampMs).containsOnly(r.getAppendTimeMs());
  }

  @Test
  void anIdempotentProducersRetryIsAnsweredWithTheFirstWrite() {
    wire.create("enc-idem", 1);
    InitProducerResponse id = wire.produce.initProducer(InitProducerRequest.getDefaultInstance());
    ProduceRequest request = ProduceRequest.newBuilder().setProducerId(id.getProducerId())
        .setProducerEpoch(id.getProducerEpoch()).addBatches(encoded("enc-idem", 3, threeRecords()).setBaseSequence(0))
        .build();
    ProduceResult first = wire.produce.produce(request).getResults(0);
    ProduceResult retry = wire.produce.produce(request).getResults(0);
    assertThat(first.getDuplicate()).isFalse();
    assertThat(retry.getDuplicate()).isTrue();
    assertThat(retry.getBaseOffset()).isEqualTo(first.getBaseOffset());
    assertThat(wire.readAll("enc-idem", 0)).hasSize(3);
    ProduceResult gap = wire.produce.produce(request.toBuilder()
        .setBatches(0, encoded("enc-idem", 3, threeRecords()).setBaseSequence(7)).build()).getResults(0);
    assertThat(gap.getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_OUT_OF_ORDER_SEQUENCE);
  }

  static ProduceBatch.Builder single(java.util.function.Consumer<ByteArrayOutputStream> record) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    record.accept(out);
    return encoded("enc-bad", 1, ByteString.copyFrom(out.toByteArray()));
  }

  static void refused(ProduceBatch.Builder batch, ErrorCode code, String why) {
    ProduceResult r = send(batch);
    assertThat(r.getErrorCode()).as(r.getErrorMessage()).isEqualTo(code);
    assertThat(r.getErrorMessage()).contains(why);
  }

  static double topicMetric(String name, String topic) throws Exception {
    String body = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
        java.net.URI.create("http://127.0.0.1:" + broker.httpPort() + "/metrics")).build(),
        java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    String series = name + "{topic=\"" + topic + "\"";
    return body.lines().filter(l -> l.startsWith(series)).mapToDouble(l -> Double.parseDouble(
        l.substring(l.lastIndexOf(' ') + 1))).findFirst().orElse(Double.NaN);
  }
}
