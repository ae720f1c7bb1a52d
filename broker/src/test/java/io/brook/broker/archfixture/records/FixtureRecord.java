package io.brook.broker.archfixture.records;

/** A model type that keeps the rules. */
public record FixtureRecord(long offset) {}
