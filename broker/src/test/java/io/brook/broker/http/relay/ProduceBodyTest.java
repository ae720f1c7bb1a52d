package io.brook.broker.http.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.records.IncomingBatch;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProduceBodyTest {
  private static List<ProduceBody.Item> parse(String json) {
    return ProduceBody.fromJson(RelayJson.parseObject(json.getBytes(StandardCharsets.UTF_8)));
  }

  private static void refused(String json, String message) {
    assertThatThrownBy(() -> parse(json)).isInstanceOf(BrokerException.class)
        .satisfies(e -> assertThat(((BrokerException) e).error()).isEqualTo(BrokerError.INVALID_REQUEST))
        .hasMessageContaining(message);
  }

  private static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void utf8RecordsWithHeadersPartitionAndTimestamp() {
    List<ProduceBody.Item> items = parse("{\"records\":[{\"key\":\"k\",\"value\":\"héllo\","
        + "\"headers\":[{\"key\":\"trace\",\"value\":\"t1\"},{\"key\":\"empty\"}],\"partition\":2,\"timestamp\":1700000000000},"
        + "{\"value\":\"\"}]}");
    assertThat(items).hasSize(2);
    assertThat(items.get(0).partition()).isEqualTo(2);
    assertThat(utf8(items.get(0).record().key())).isEqualTo("k");
    assertThat(utf8(items.get(0).record().value())).isEqualTo("héllo");
    assertThat(items.get(0).record().timestamp()).isEqualTo(1700000000000L);
    assertThat(items.get(0).record().headers()).hasSize(2);
    assertThat(items.get(0).record().headers().get(0).name()).isEqualTo("trace");
    assertThat(utf8(items.get(0).record().headers().get(0).value())).isEqualTo("t1");
    assertThat(items.get(0).record().headers().get(1).value()).isEmpty();
    assertThat(items.get(1).partition()).isNull();
    assertThat(items.get(1).record().key()).isNull();
    assertThat(items.get(1).record().value()).isEmpty();
    assertThat(items.get(1).record().timestamp()).isEqualTo(IncomingBatch.Listed.NO_TIMESTAMP);
  }

  @Test
  void base64ForTheWholeBodyOrPerRecordAndHeader() {
    List<ProduceBody.Item> items = parse("{\"encoding\":\"base64\",\"records\":[{\"key\":\"AAE=\",\"value\":\"/w\","
        + "\"headers\":[{\"key\":\"h\",\"value\":\"AP8=\"}]},"
        + "{\"key\":\"plain\",\"keyEncoding\":\"utf8\",\"value\":\"AA==\"}]}");
    assertThat(items.get(0).record().key()).containsExactly(0, 1);
    assertThat(items.get(0).record().value()).containsExactly(0xff);
    assertThat(items.get(0).record().headers().get(0).value()).containsExactly(0, 0xff);
    assertThat(utf8(items.get(1).record().key())).isEqualTo("plain");
    assertThat(items.get(1).record().value()).containsExactly(0);
    List<ProduceBody.Item> mixed = parse("{\"records\":[{\"value\":\"aGk=\",\"valueEncoding\":\"base64\","
        + "\"headers\":[{\"key\":\"b\",\"value\":\"AQ==\",\"encoding\":\"base64\"}]}]}");
    assertThat(utf8(mixed.get(0).record().value())).isEqualTo("hi");
    assertThat(mixed.get(0).record().headers().get(0).value()).containsExactly(1);
  }

  @Test
  void wrongTypesAndShapesNameTheField() {
    refused("{\"records\":[{\"value\":1}]}", "records[0].value must be a string, got a number");
    refused("{\"records\":[{\"value\":\"x\",\"partition\":\"1\"}]}", "records[0].partition must be an integer, got a string");
    refused("{\"records\":[{\"value\":\"x\",\"partition\":1.5}]}", "records[0].partition must be an integer");
    refused("{\"records\":[{\"value\":\"x\",\"partition\":-1}]}", "records[0].partition must be in 0..2147483647, got -1");
    refused("{\"records\":[{\"value\":\"x\",\"partition\":4294967296}]}", "records[0].partition must be in 0..");
    refused("{\"records\":[{\"value\":\"x\",\"timestamp\":-5}]}", "records[0].timestamp must be in 0..");
    refused("{\"records\":[{\"value\":\"x\",\"timestamp\":1e400}]}", "records[0].timestamp must be an integer");
    refused("{\"records\":[{\"value\":\"x\",\"key\":[]}]}", "records[0].key must be a string, got an array");
    refused("{\"records\":[{\"value\":\"x\",\"headers\":{}}]}", "records[0].headers must be an array, got an object");
    refused("{\"records\":[{\"value\":\"x\",\"headers\":[{\"value\":\"v\"}]}]}", "records[0].headers[0].key is required");
    refused("{\"records\":[{\"value\":\"x\",\"headers\":[\"h\"]}]}", "records[0].headers[0] must be an object, got a string");
    refused("{\"records\":[{\"key\":\"k\"}]}", "records[0].value is required");
    refused("{\"records\":[{\"value\":null}]}", "records[0].value must be a string, got null");
    refused("{\"records\":[\"x\"]}", "records[0] must be an object, got a string");
    refused("{\"records\":{}}", "records must be an array, got an object");
    refused("{\"records\":[]}", "records is empty");
    refused("{}", "records is required");
    refused("{\"records\":[{\"value\":\"x\",\"valu\":\"y\"}]}", "records[0].valu is not a known field");
    refused("{\"record\":[]}", "record is not a known field");
    refused("{\"encoding\":\"hex\",\"records\":[{\"value\":\"x\"}]}", "encoding must be utf8 or base64, got 'hex'");
    refused("{\"records\":[{\"value\":\"%%%\",\"valueEncoding\":\"base64\"}]}", "records[0].value is not valid base64");
    refused("{\"records\":[{\"value\":\"\\ud800\"}]}", "records[0].value is not valid Unicode");
  }
}
