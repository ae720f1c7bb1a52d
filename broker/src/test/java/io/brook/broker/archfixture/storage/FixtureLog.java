package io.brook.broker.archfixture.storage;

import io.brook.broker.archfixture.records.FixtureRecord;

/** A storage type that keeps the rules (it may use the model). */
public class FixtureLog {
  FixtureRecord last;
}
