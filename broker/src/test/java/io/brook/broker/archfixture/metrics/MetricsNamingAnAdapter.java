package io.brook.broker.archfixture.metrics;

import io.brook.broker.archfixture.api.FixtureAdapter;

/** Breaks adaptersAreUsedOnlyByServer: a cross-cutting package depends on a protocol door. */
public class MetricsNamingAnAdapter {
  FixtureAdapter adapter;
}
