package io.brook.client;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/** A record header: a name and a byte value. A record's headers are ordered; names may repeat. */
public record Header(String key, byte[] value) {
  public Header {
    Objects.requireNonNull(key, "header key");
    Objects.requireNonNull(value, "header value");
  }

  public static Header of(String key, String value) {
    return new Header(key, value.getBytes(StandardCharsets.UTF_8));
  }

  public String valueAsString() {
    return new String(value, StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Header h && key.equals(h.key) && Arrays.equals(value, h.value);
  }

  @Override
  public int hashCode() {
    return 31 * key.hashCode() + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return key + "=" + valueAsString();
  }
}
