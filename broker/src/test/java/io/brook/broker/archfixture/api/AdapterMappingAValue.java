package io.brook.broker.archfixture.api;

import io.brook.broker.archfixture.topics.TopicSummary;

/** Keeps doorsCallTheCore: a door maps a domain value the core returned, and calls nothing past the core. */
public class AdapterMappingAValue {
  String describe(TopicSummary s) {
    return s.name() + "/" + s.partitions();
  }
}
