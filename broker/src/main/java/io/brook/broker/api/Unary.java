package io.brook.broker.api;

import io.grpc.stub.StreamObserver;
import java.util.function.Supplier;

/** Answers a unary call: the response, or the failure mapped to its status. */
final class Unary {
  private Unary() {}

  static <T> void answer(StreamObserver<T> out, Supplier<T> work) {
    T response;
    try {
      response = work.get();
    } catch (RuntimeException e) {
      out.onError(Errors.toStatus(e));
      return;
    }
    out.onNext(response);
    out.onCompleted();
  }
}
