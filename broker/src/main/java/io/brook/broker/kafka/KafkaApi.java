package io.brook.broker.kafka;

import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One Kafka API the listener serves: the versions it takes and how a request becomes a response.
 * The listener decodes the request with Kafka's generated classes, calls {@link #handle} only with a
 * version in range, and writes the answers of one connection in request order, however they complete.
 */
public interface KafkaApi {
  ApiKeys key();

  /** The lowest version served. */
  short minVersion();

  /**
   * The lowest version ApiVersions advertises: {@link #minVersion()}, except for Produce, which
   * advertises 0 though it serves only 3 and up, because librdkafka turns compression off against a
   * broker whose Produce minimum is above 2 (librdkafka#4956, KAFKA-18659). A request below
   * {@link #minVersion()} closes the connection, as any version out of range does.
   */
  default short advertisedMinVersion() {
    return minVersion();
  }

  /** The highest version served; never above what the pinned kafka-clients knows. */
  short maxVersion();

  /**
   * Whether the handler answers from memory in microseconds (no disk, no decompression, no waiting): the
   * listener may then call it on the connection's network thread. Every other handler is called on the
   * broker's worker pool, so that one slow request does not hold up the other connections of its thread;
   * either way a connection's handlers are called one at a time, in request order.
   */
  default boolean quick() {
    return false;
  }

  /**
   * Answers one request. Bad input is answered with Kafka error codes in the response, not thrown;
   * an exception fails only this request (the listener logs it once and closes the connection).
   *
   * @return the response data, or a future of null for no response at all (Produce with acks=0)
   */
  CompletableFuture<ApiMessage> handle(KafkaRequest request);
}
