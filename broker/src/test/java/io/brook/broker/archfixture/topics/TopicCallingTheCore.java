package io.brook.broker.archfixture.topics;

import io.brook.broker.archfixture.core.FixtureService;

/** Breaks coreIsCalledOnlyFromAbove: the domain calls up into the core. */
public class TopicCallingTheCore {
  FixtureService service;
}
