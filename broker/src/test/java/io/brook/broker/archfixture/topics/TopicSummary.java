package io.brook.broker.archfixture.topics;

/** A domain value (a record) that a door may name: doorsCallTheCore must not report its users. */
public record TopicSummary(String name, int partitions) {}
