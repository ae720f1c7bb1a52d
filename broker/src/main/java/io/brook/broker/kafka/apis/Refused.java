package io.brook.broker.kafka.apis;

import io.brook.broker.kafka.apis.KafkaErrors.Failure;

/** What a handler checks itself refused one item of a request (a topic, a config): answered, never logged. */
final class Refused extends RuntimeException {
  final Failure failure;

  Refused(Failure failure) {
    super(failure.message(), null, false, false);
    this.failure = failure;
  }
}
