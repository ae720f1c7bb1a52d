package io.brook.client.archfixture;

import io.micrometer.core.instrument.MeterRegistry;

/** A client class outside io.brook.client.micrometer that uses Micrometer: ClientBoundaryTest's rule must catch it. */
final class UsesMicrometer {
  int meters(MeterRegistry registry) {
    return registry.getMeters().size();
  }
}
