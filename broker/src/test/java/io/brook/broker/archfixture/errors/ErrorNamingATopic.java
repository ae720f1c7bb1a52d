package io.brook.broker.archfixture.errors;

import io.brook.broker.archfixture.topics.FixtureTopic;

/** Breaks modelImportsNoOtherLayer: the model depends on the domain. */
public class ErrorNamingATopic {
  FixtureTopic topic;
}
