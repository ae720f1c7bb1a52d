package io.brook.client;

/** Turns the bytes of a fetched key or value back into an object. {@code null} (no key) stays {@code null}. */
@FunctionalInterface
public interface Deserializer<T> {
  T deserialize(String topic, byte[] data);
}
