package io.brook.broker.metrics;

/**
 * What the gRPC services report for metrics that a call's status and lifetime do not show: refusals
 * inside an answer that is itself OK, and how long each produce request took, also in a stream.
 */
public interface ApiObserver {
  ApiObserver NONE = new ApiObserver() {
    @Override
    public void refused(String reason, String code) {}

    @Override
    public void produceAnswered(long nanos) {}
  };

  /**
   * A batch refused inside a produce answer.
   *
   * @param reason the error's name as ErrorInfo carries it (RECORD_TOO_LARGE, ...)
   * @param code the gRPC status code it has when it fails a whole call
   */
  void refused(String reason, String code);

  /** A produce request's answer is ready, this many nanoseconds after the request arrived. */
  void produceAnswered(long nanos);
}
