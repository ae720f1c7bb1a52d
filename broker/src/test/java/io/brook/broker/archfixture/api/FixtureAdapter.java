package io.brook.broker.archfixture.api;

import io.brook.broker.archfixture.core.FixtureService;
import io.grpc.Status;

/** An adapter that keeps the rules: it calls the core and may speak gRPC. */
public class FixtureAdapter {
  FixtureService service;
  Status status;
}
