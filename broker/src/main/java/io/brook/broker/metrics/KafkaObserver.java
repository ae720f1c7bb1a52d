package io.brook.broker.metrics;

import java.util.Map;

/**
 * What the Kafka listener reports for metrics, in plain names (metrics knows neither Netty nor
 * kafka-clients): connections, each answered request by API with the error codes its answer holds,
 * and connections closed for bad input.
 */
public interface KafkaObserver {
  KafkaObserver NONE = new KafkaObserver() {
    @Override
    public void opened() {}

    @Override
    public void closed() {}

    @Override
    public void answered(String api, long nanos, Map<String, Integer> errors) {}

    @Override
    public void refused(String reason) {}
  };

  void opened();

  void closed();

  /**
   * A request was answered (or, with acks=0, done without an answer).
   *
   * @param api the API's name as Kafka spells it (Metadata, Produce, ...)
   * @param nanos from the request's arrival to its answer being handed to the socket
   * @param errors the answer's error codes by name (NONE included) and how often each occurs in it
   */
  void answered(String api, long nanos, Map<String, Integer> errors);

  /** A connection closed because of what the client sent (reason: oversize_frame, unknown_api, ...). */
  void refused(String reason);
}
