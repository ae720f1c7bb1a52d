package io.brook.broker.archfixture.api;

import org.apache.kafka.common.protocol.ApiKeys;

/** Breaks kafkaClientsOnlyInKafka: a door outside kafka names a kafka-clients type. */
public class AdapterOnKafkaClients {
  ApiKeys key;
}
