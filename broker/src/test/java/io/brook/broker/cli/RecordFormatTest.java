package io.brook.broker.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.brook.protocol.v1.Record;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
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
  void unknownPlaceholdersNameTheKnownOnes() {
    assertThatThrownBy(() -> new RecordFormat("%x")).isInstanceOf(CliException.class)
        .hasMessageContaining("%a");
  }
}
