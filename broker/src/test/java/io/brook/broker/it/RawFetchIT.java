package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.brook.protocol.batch.BatchReader;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.FetchPartition;
import io.brook.protocol.v1.FetchRequest;
import io.brook.protocol.v1.FetchResponse;
import io.brook.protocol.v1.Header;
import io.brook.protocol.v1.PartitionRecords;
import io.brook.protocol.v1.Record;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Fetch with raw_batches against the real broker process: stored batches, decoded as a client does. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RawFetchIT {
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

  @Test
  void rawBatchesDecodeToExactlyTheRecordsARecordFetchReturns() {
    wire.create("raw-same", 1);
    Record full = Record.newBuilder().setKey(ByteString.copyFromUtf8("k")).setValue(ByteString.copyFromUtf8("v"))
        .addHeaders(Header.newBuilder().setKey("h").setValue(ByteString.copyFromUtf8("1")))
        .setTimestampMs(1_700_000_000_000L).build();
    Record emptyKey = Record.newBuilder().setKey(ByteString.EMPTY).setValue(ByteString.EMPTY).build();
    wire.produce("raw-same", 0, List.of(full, emptyKey, Wire.value("third")));
    wire.produceValues("raw-same", 0, 5, "later-");

    List<Record> expected = wire.readAll("raw-same", 0);
    PartitionRecords raw = rawFetch(1000, 1 << 20, part("raw-same", 0, 2)).getPartitions(0);
    assertThat(raw.getRecordsCount()).as("raw answers carry batches only").isZero();
    assertThat(raw.getBatchesCount()).isEqualTo(2);
    assertThat(raw.getNextOffset()).isEqualTo(8);
    assertThat(raw.getEndOffset()).isEqualTo(8);
    assertThat(decode(raw, 2)).isEqualTo(expected.subList(2, 8));
    assertThat(decode(rawFetch(1000, 1 << 20, part("raw-same", 0, 0)).getPartitions(0), 0)).isEqualTo(expected);
  }

  @Test
  void limitsCountWholeBatchesAndTheFirstBatchAlwaysComes() {
    wire.create("raw-limits", 2);
    for (int i = 0; i < 4; i++) {
      wire.produceValues("raw-limits", 0, 10, "p0-" + i + "-");
      wire.produceValues("raw-limits", 1, 10, "p1-" + i + "-");
    }
    // 15 records: the first batch (10) leaves room, the second makes 20; partition 1 gets nothing.
    FetchResponse byRecords = rawFetch(15, 1 << 20, part("raw-limits", 0, 0), part("raw-limits", 1, 0));
    assertThat(byRecords.getPartitions(0).getBatchesCount()).isEqualTo(2);
    assertThat(byRecords.getPartitions(0).getNextOffset()).isEqualTo(20);
    assertThat(byRecords.getPartitions(1).getBatchesCount()).isZero();
    assertThat(byRecords.getPartitions(1).getNextOffset()).isZero();

    int batchBytes = byRecords.getPartitions(0).getBatches(0).size();
    FetchResponse oneByte = rawFetch(1000, 1, part("raw-limits", 0, 35), part("raw-limits", 1, 0));
    assertThat(oneByte.getPartitions(0).getBatchesCount()).as("the first batch whatever its size").isEqualTo(1);
    assertThat(decode(oneByte.getPartitions(0), 35)).extracting(r -> r.getValue().toStringUtf8())
        .containsExactly("p0-3-5", "p0-3-6", "p0-3-7", "p0-3-8", "p0-3-9");
    assertThat(oneByte.getPartitions(1).getBatchesCount()).as("a second partition must fit").isZero();

    FetchResponse shared = rawFetch(1000, 3 * batchBytes, part("raw-limits", 0, 20), part("raw-limits", 1, 0));
    assertThat(shared.getPartitions(0).getBatchesCount()).isEqualTo(2);
    assertThat(shared.getPartitions(1).getBatchesCount()).as("max_bytes bounds the whole answer").isEqualTo(1);
    assertThat(shared.getPartitions(1).getNextOffset()).isEqualTo(10);
  }

  @Test
  void aRawLongPollIsAnsweredByTheNextAppendAndErrorsStayPerPartition() throws Exception {
    wire.create("raw-poll", 1);
    FetchRequest waitForOne = FetchRequest.newBuilder().setRawBatches(true).addPartitions(part("raw-poll", 0, 0))
        .setMaxWaitMs(60_000).build();
    CompletableFuture<FetchResponse> answer = CompletableFuture.supplyAsync(() -> wire.fetch.fetch(waitForOne));
    Thread.sleep(300);
    assertThat(answer).isNotDone();
    wire.produceValues("raw-poll", 0, 1, "wake");
    PartitionRecords woken = answer.get(30, TimeUnit.SECONDS).getPartitions(0);
    assertThat(decode(woken, 0)).extracting(r -> r.getValue().toStringUtf8()).containsExactly("wake0");

    FetchResponse mixed = rawFetch(0, 0, part("raw-poll", 0, 5), part("no-such-topic", 0, 0));
    assertThat(mixed.getPartitions(0).getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_OFFSET_OUT_OF_RANGE);
    assertThat(mixed.getPartitions(0).getErrorMessage()).contains("0 to 1");
    assertThat(mixed.getPartitions(1).getErrorCode()).isEqualTo(ErrorCode.ERROR_CODE_UNKNOWN_TOPIC);
  }

  @Test
  void logAppendTimeTopicsGiveRawRecordsTheAppendTime() {
    wire.admin.createTopic(CreateTopicRequest.newBuilder().setName("raw-append-time").setPartitions(1)
        .putConfig("message.timestamp.type", "LogAppendTime").build());
    Record old = Record.newBuilder().setValue(ByteString.copyFromUtf8("x")).setTimestampMs(5).build();
    long appended = wire.produce("raw-append-time", 0, List.of(old)).getResults(0).getAppendTimeMs();
    Record back = decode(rawFetch(1, 1000, part("raw-append-time", 0, 0)).getPartitions(0), 0).get(0);
    assertThat(back.getTimestampMs()).isEqualTo(appended);
  }

  private static FetchPartition part(String topic, int partition, long offset) {
    return FetchPartition.newBuilder().setTopic(topic).setPartition(partition).setOffset(offset).build();
  }

  private static FetchResponse rawFetch(int maxRecords, int maxBytes, FetchPartition... partitions) {
    FetchRequest.Builder request = FetchRequest.newBuilder().setRawBatches(true).setMaxRecords(maxRecords)
        .setMaxBytes(maxBytes);
    for (FetchPartition p : partitions) {
      request.addPartitions(p);
    }
    return wire.fetch.fetch(request.build());
  }

  /** The records at or after {@code from}, rebuilt as wire records so they compare with a record fetch. */
  private static List<Record> decode(PartitionRecords pr, long from) {
    BatchReader reader = new BatchReader();
    List<Record> out = new ArrayList<>();
    for (ByteString batch : pr.getBatchesList()) {
      byte[] b = batch.toByteArray();
      reader.wrap(b, 0, b.length).skipTo(from);
      while (reader.next()) {
        Record.Builder r = Record.newBuilder().setOffset(reader.offset()).setTimestampMs(reader.timestamp())
            .setValue(ByteString.copyFrom(reader.copyValue()));
        if (reader.hasKey()) {
          r.setKey(ByteString.copyFrom(reader.copyKey()));
        }
        for (int i = 0; i < reader.headerCount(); i++) {
          r.addHeaders(Header.newBuilder().setKeyBytes(ByteString.copyFrom(reader.copyHeaderName(i)))
              .setValue(ByteString.copyFrom(reader.copyHeaderValue(i))));
        }
        out.add(r.build());
      }
    }
    return out;
  }
}
