package io.brook.broker.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.brook.client.Serdes;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.internal.RecordConversion;
import io.brook.protocol.v1.Record;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordFormatTest {
  static final Record RECORD = Record.newBuilder().setKey(ByteString.copyFromUtf8("k"))
      .setValue(ByteString.copyFromUtf8("v")).setOffset(42).setTimestampMs(0).build();

  static String format(String template, int attempt) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new RecordFormat(template).write(3, RECORD, attempt, out);
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void attemptPrintsTheDeliveryAttemptOfAckModeAndNothingOtherwise() throws Exception {
    assertThat(format("%p/%o %a %k=%v", 2)).isEqualTo("3/42 2 k=v\n");
    assertThat(format("[%a]", 0)).isEqualTo("[]\n");
  }

  @Test
  void aClientRecordPrintsLikeTheWireRecordItCameFrom() throws Exception {
    Record wire = RECORD.toBuilder().setTimestampMs(1_700_000_000_000L)
        .addHeaders(io.brook.protocol.v1.Header.newBuilder().setKey("a").setValue(ByteString.copyFromUtf8("1")))
        .addHeaders(io.brook.protocol.v1.Header.newBuilder().setKey("b").setValue(ByteString.copyFromUtf8("é")))
        .build();
    ConsumerRecord<byte[], byte[]> client = RecordConversion.toRecord("t", 3, wire,
        Serdes.bytesDeserializer(), Serdes.bytesDeserializer(), ConsumerRecord::new);
    String template = "%p %o %t %T [%k] [%v] [%h] [%a] 100%% é";
    ByteArrayOutputStream fromWire = new ByteArrayOutputStream();
    new RecordFormat(template).write(3, wire, fromWire);
    ByteArrayOutputStream fromClient = new ByteArrayOutputStream();
    new RecordFormat(template).write(client, fromClient);
    assertThat(fromClient.toString(StandardCharsets.UTF_8)).isEqualTo(fromWire.toString(StandardCharsets.UTF_8))
        .isEqualTo("3 42 1700000000000 2023-11-14T22:13:20Z [k] [v] [a=1,b=é] [] 100% é\n");

    ConsumerRecord<byte[], byte[]> noKey = new ConsumerRecord<>("t", 0, 1, 0, null, new byte[0], List.of());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    new RecordFormat("[%k][%v][%h]").write(noKey, out);
    assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("[][][]\n");
  }

  @Test
  void unknownPlaceholdersNameTheKnownOnes() {
    assertThatThrownBy(() -> new RecordFormat("%x")).isInstanceOf(CliException.class)
        .hasMessageContaining("%a");
  }
}
