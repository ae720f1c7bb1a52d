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
 * @param memory the outbound memory of this request's answer, on its connection's account; through it
 *     the connection (its executor, its close hooks)
 */
public record KafkaRequest(short apiVersion, int correlationId, String clientId, ApiMessage body,
    KafkaListenerInfo listener, InetSocketAddress remote, AnswerMemory memory) {

  /** A request outside any listener's connection (a handler called directly): a scope of its own. */
  public KafkaRequest(short apiVersion, int correlationId, String clientId, ApiMessage body,
      KafkaListenerInfo listener, InetSocketAddress remote) {
    this(apiVersion, correlationId, clientId, body, listener, remote, new AnswerMemory(ConnectionScope.standalone()));
  }

  /** Who sent it, and what it may do. */
  public io.brook.broker.kafka.access.KafkaCaller caller() {
    return connection().caller();
  }

  /** The connection the request came on. */
  public ConnectionScope connection() {
    return memory.connection();
  }
}
