package io.brook.client;

import java.nio.charset.StandardCharsets;

/** The serializers and deserializers most applications need. */
public final class Serdes {
  private Serdes() {}

  public static Serializer<String> stringSerializer() {
    return (topic, s) -> s == null ? null : s.getBytes(StandardCharsets.UTF_8);
  }

  public static Deserializer<String> stringDeserializer() {
    return (topic, b) -> b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  /** Bytes as they are. (The producer copies them into its batch inside {@code send}.) */
  public static Serializer<byte[]> bytesSerializer() {
    return (topic, b) -> b;
  }

  public static Deserializer<byte[]> bytesDeserializer() {
    return (topic, b) -> b;
  }
}
