package io.brook.client.consumer;

import io.brook.protocol.v1.CommitOffsetsResponse;
import io.brook.protocol.v1.CommitResult;
import io.brook.protocol.v1.ErrorCode;
import io.grpc.stub.StreamObserver;

/** An async commit's observer that adds its latency and outcome to the consumer's metrics on the way. */
final class TimedCommit implements StreamObserver<CommitOffsetsResponse> {
  private final StreamObserver<CommitOffsetsResponse> observer;
  private final ConsumerMetrics metrics;
  private final long start = System.nanoTime();
  private boolean refused;

  TimedCommit(StreamObserver<CommitOffsetsResponse> observer, ConsumerMetrics metrics) {
    this.observer = observer;
    this.metrics = metrics;
  }

  @Override
  public void onNext(CommitOffsetsResponse response) {
    for (CommitResult r : response.getResultsList()) {
      refused |= r.getErrorCode() != ErrorCode.ERROR_CODE_UNSPECIFIED;
    }
    observer.onNext(response);
  }

  @Override
  public void onError(Throwable t) {
    metrics.committed(start, true);
    observer.onError(t);
  }

  @Override
  public void onCompleted() {
    metrics.committed(start, refused);
    observer.onCompleted();
  }
}
