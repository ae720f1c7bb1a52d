package io.brook.broker.archfixture.core;

/** A core service the fixtures point at. */
public class FixtureService {}
