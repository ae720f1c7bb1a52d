package io.brook.broker.archfixture.storage;

import io.brook.broker.archfixture.topics.FixtureTopic;

/** Breaks storageImportsNothingAbove: storage depends on the domain. */
public class LogReadingATopic {
  FixtureTopic topic;
}
