package io.brook.broker.kafka;

/**
 * What a Kafka client learns about this broker: the one node of the cluster.
 *
 * @param nodeId always 0: Brook is one node
 * @param advertisedHost the host Metadata and DescribeCluster return (kafka.advertised)
 * @param advertisedPort its port (the bound port when kafka.listen asked for port 0)
 * @param clusterId the persisted cluster id (a Kafka-style base64 UUID, the same across restarts)
 * @param tls whether this listener speaks TLS
 */
public record KafkaListenerInfo(int nodeId, String advertisedHost, int advertisedPort, String clusterId, boolean tls) {}
