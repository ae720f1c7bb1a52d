package io.brook.broker.groups.classic;

/** Kafka's classic group states, by their Kafka names. */
enum ClassicState {
  EMPTY("Empty"),
  PREPARING_REBALANCE("PreparingRebalance"),
  COMPLETING_REBALANCE("CompletingRebalance"),
  STABLE("Stable"),
  DEAD("Dead");

  final String kafkaName;

  ClassicState(String kafkaName) {
    this.kafkaName = kafkaName;
  }
}
