package io.brook.client.ack;

import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.LeasedRecords;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.ReceiveResponse;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One {@code AckService.Receive} stream: what the broker sends goes to the listener (on gRPC's
 * threads); sends are serialized here, because a gRPC request stream is not thread-safe.
 */
final class ReceiveStream implements ClientResponseObserver<ReceiveRequest, ReceiveResponse> {
  interface Listener {
    void onMemberId(ReceiveStream stream, String memberId);

    void onRecords(ReceiveStream stream, LeasedRecords batch);

    /**
     * Settles of the stream that did not apply; {@code settledSeq} > 0: the answer to that numbered
     * message, whose failures these are (maybe none).
     */
    void onFailures(ReceiveStream stream, long settledSeq, List<io.brook.protocol.v1.SettleFailure> failures);

    /** The stream ended: {@code error} null when the broker completed it. */
    void onEnd(ReceiveStream stream, Throwable error);
  }

  final long id;
  private final Listener listener;
  private final CountDownLatch ended = new CountDownLatch(1);
  private ClientCallStreamObserver<ReceiveRequest> requests;
  private volatile String memberId;
  /** The broker answers numbered settle messages; written before memberId. */
  private volatile boolean confirmsSettles;
  private volatile boolean closing;
  private volatile Throwable error;

  private ReceiveStream(long id, Listener listener) {
    this.id = id;
    this.listener = listener;
  }

  /** Opens the stream and sends its first message (group, topics, client id, flow control). */
  static ReceiveStream open(AckServiceGrpc.AckServiceStub stub, long id, ReceiveRequest first, Listener listener) {
    ReceiveStream s = new ReceiveStream(id, listener);
    stub.receive(s); // calls beforeStart before it returns
    s.send(first);
    return s;
  }

  /** The member id the broker answered, or null before its first answer. */
  String memberId() {
    return memberId;
  }

  /** The broker answers numbered settle messages ({@code settle_seq}); known once {@link #memberId()} is. */
  boolean confirmsSettles() {
    return confirmsSettles;
  }

  /** The stream ended (its {@link #error()} is set). */
  boolean ended() {
    return ended.getCount() == 0;
  }

  /** We half-closed it: its end is expected. */
  boolean closing() {
    return closing;
  }

  /** Sends one message; false when the stream is closing or gone (the message is not sent). */
  synchronized boolean send(ReceiveRequest request) {
    if (closing || ended.getCount() == 0) {
      return false;
    }
    try {
      requests.onNext(request);
      return true;
    } catch (RuntimeException gone) {
      return false;
    }
  }

  /** Ends our side: the broker applies what was sent, reports failures, then ends the stream. */
  synchronized void halfClose() {
    if (!closing) {
      closing = true;
      try {
        requests.onCompleted();
      } catch (RuntimeException gone) {
        // ended already
      }
    }
  }

  void cancel(String why) {
    closing = true;
    requests.cancel(why, null);
  }

  boolean awaitEnd(long millis) throws InterruptedException {
    return ended.await(millis, TimeUnit.MILLISECONDS);
  }

  /** How the stream ended: null while open and when the broker completed it. */
  Throwable error() {
    return error;
  }

  @Override
  public void beforeStart(ClientCallStreamObserver<ReceiveRequest> requestStream) {
    this.requests = requestStream;
  }

  @Override
  public void onNext(ReceiveResponse response) {
    if (memberId == null && !response.getMemberId().isEmpty()) {
      confirmsSettles = response.getConfirmsSettles();
      memberId = response.getMemberId();
      listener.onMemberId(this, memberId);
    }
    for (LeasedRecords batch : response.getBatchesList()) {
      listener.onRecords(this, batch);
    }
    if (response.getFailuresCount() > 0 || response.getSettledSeq() > 0) {
      listener.onFailures(this, response.getSettledSeq(), response.getFailuresList());
    }
  }

  @Override
  public void onError(Throwable t) {
    error = t;
    ended.countDown();
    listener.onEnd(this, t);
  }

  @Override
  public void onCompleted() {
    ended.countDown();
    listener.onEnd(this, null);
  }
}
