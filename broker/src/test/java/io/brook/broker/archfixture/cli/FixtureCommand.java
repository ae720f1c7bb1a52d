package io.brook.broker.archfixture.cli;

import io.brook.broker.archfixture.storage.StorageException;
import io.brook.broker.archfixture.storage.dump.FixtureDump;
import io.brook.client.Security;

/** A command that keeps the rules: the Java client, the offline dump, storage's exception. */
public class FixtureCommand {
  Security security;
  FixtureDump dump;
  StorageException failure;
}
