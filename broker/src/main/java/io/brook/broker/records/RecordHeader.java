package io.brook.broker.records;

import java.nio.charset.StandardCharsets;

/** A record header. The name is kept as UTF-8 bytes, the form it is stored in. */
public record RecordHeader(byte[] nameUtf8, byte[] value) {
  public RecordHeader {
    if (nameUtf8 == null || value == null) {
      throw new IllegalArgumentException("header name and value must not be null");
    }
  }

  public static RecordHeader of(String name, byte[] value) {
    return new RecordHeader(name.getBytes(StandardCharsets.UTF_8), value);
  }

  public String name() {
    return new String(nameUtf8, StandardCharsets.UTF_8);
  }
}
