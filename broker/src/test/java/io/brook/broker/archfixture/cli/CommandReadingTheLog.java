package io.brook.broker.archfixture.cli;

import io.brook.broker.archfixture.storage.FixtureLog;

/** Breaks cliReadsStorageOnlyThroughTheDump: the cli opens the log, not the dump. */
public class CommandReadingTheLog {
  FixtureLog log;
}
