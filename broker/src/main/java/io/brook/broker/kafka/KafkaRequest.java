package io.brook.broker.kafka;

import java.net.InetSocketAddress;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One decoded request as a {@link KafkaApi} sees it.
 *
 * @param apiVersion the version the client used (within the handler's range)
 * @param clientId the client's client.id, or null
 * @param body the request data, e.g. {@code MetadataRequestData}
 * @param listener what the listener tells clients about this broker
 * @param remote the client's address
 */
public record KafkaRequest(short apiVersion, int correlationId, String clientId, ApiMessage body,
    KafkaListenerInfo listener, InetSocketAddress remote) {}
