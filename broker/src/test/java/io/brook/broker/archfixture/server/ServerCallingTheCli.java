package io.brook.broker.archfixture.server;

import io.brook.broker.archfixture.api.FixtureAdapter;
import io.brook.broker.archfixture.cli.FixtureCommand;

/** Breaks cliIsImportedByNoOtherPackage: the broker calls its command-line tool. (It may wire api.) */
public class ServerCallingTheCli {
  FixtureAdapter adapter;
  FixtureCommand command;
}
