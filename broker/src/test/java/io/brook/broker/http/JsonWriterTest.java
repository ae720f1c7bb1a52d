package io.brook.broker.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class JsonWriterTest {
  @Test
  void nestsWithCommasInTheRightPlaces() {
    String json = new JsonWriter().beginObject().name("a").value(1).name("b").beginArray().value("x").value(true)
        .nullValue().beginObject().endObject().endArray().name("c").beginObject().name("d").value(-2).endObject()
        .endObject().toString();
    assertThat(json).isEqualTo("{\"a\":1,\"b\":[\"x\",true,null,{}],\"c\":{\"d\":-2}}");
  }

  @Test
  void escapesQuotesBackslashesAndControlCharacters() {
    String json = new JsonWriter().beginObject().name("t\"x").value("a\\b\n\t\u0001\u2028.é_-").endObject().toString();
    assertThat(json).isEqualTo("{\"t\\\"x\":\"a\\\\b\\n\\t\\u0001\\u2028.é_-\"}");
  }
}
