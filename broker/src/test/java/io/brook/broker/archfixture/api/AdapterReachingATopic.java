package io.brook.broker.archfixture.api;

import io.brook.broker.archfixture.topics.FixtureTopic;

/** Breaks doorsCallTheCore: a protocol door reaches into the domain past the core. */
public class AdapterReachingATopic {
  FixtureTopic topic;
}
