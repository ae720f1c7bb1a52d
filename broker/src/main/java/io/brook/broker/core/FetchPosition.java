package io.brook.broker.core;

/** A partition to read, and the offset to read it from. */
public record FetchPosition(String topic, int partition, long offset) {}
