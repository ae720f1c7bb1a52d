package io.brook.broker.archfixture.topics;

/** A domain type the fixtures point at. */
public class FixtureTopic {}
