package io.brook.client;

/** Turns a key or value into bytes for the wire. {@code null} stays {@code null} (no key). */
@FunctionalInterface
public interface Serializer<T> {
  byte[] serialize(String topic, T data);
}
