package io.brook.broker.archfixture.api;

import io.brook.broker.archfixture.storage.FixtureLog;

/** Breaks adaptersDoNotReachStorage: an adapter reads the log itself. */
public class AdapterReadingStorage {
  FixtureLog log;
}
