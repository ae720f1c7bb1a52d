package io.brook.broker.http.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.errors.BrokerException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RelayJsonTest {
  private static void refused(byte[] body, String message) {
    assertThatThrownBy(() -> RelayJson.parseObject(body)).isInstanceOf(BrokerException.class)
        .hasMessageContaining(message);
  }

  private static void refused(String body, String message) {
    refused(body.getBytes(StandardCharsets.UTF_8), message);
  }

  @Test
  void onlyOneStrictJsonObjectIsTaken() {
    assertThat(RelayJson.parseObject("{\"a\":1}".getBytes(StandardCharsets.UTF_8)).get("a").getAsInt()).isEqualTo(1);
    refused("", "the body is empty");
    refused("{\"a\":1", "bad JSON");
    refused("{a:1}", "bad JSON: malformed JSON at line 1 column 3"); // unquoted name: lenient gson would take it
    refused("{\"a\":'x'}", "bad JSON");
    refused("{\"a\":1} {\"b\":2}", "more than one value");
    refused("[1]", "the body must be a JSON object, got an array");
    refused("\"x\"", "got a string");
    refused(new byte[] {'{', '"', (byte) 0xc3, '"', ':', '1', '}'}, "not valid UTF-8");
  }

  @Test
  void deepNestingIsRefusedWithoutOverflowingTheStack() {
    String deep = "{\"a\":" + "[".repeat(200_000) + "]".repeat(200_000) + "}";
    assertThatThrownBy(() -> RelayJson.parseObject(deep.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(BrokerException.class).hasMessageStartingWith("bad JSON: Nesting limit 255 reached")
        .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(300));
  }
}
