package io.brook.client.archfixture;

import io.brook.broker.fixture.FakeBrokerClass;

/** A client class that breaks the boundary on purpose: ClientBoundaryTest's rule must catch it. */
final class UsesBrokerCode {
  int call() {
    return FakeBrokerClass.answer();
  }
}
