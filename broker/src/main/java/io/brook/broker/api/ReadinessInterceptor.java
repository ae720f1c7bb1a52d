package io.brook.broker.api;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.function.Supplier;

/**
 * Answers brook.v1 calls with UNAVAILABLE while the broker is not ready: until storage recovery is
 * done, and once a shutdown began (health and reflection stay reachable, so probes and grpcurl see
 * NOT_SERVING rather than a closed port).
 */
public final class ReadinessInterceptor implements ServerInterceptor {
  private final Supplier<String> notReady;

  /** @param notReady why the broker is not ready, or null when it is */
  public ReadinessInterceptor(Supplier<String> notReady) {
    this.notReady = notReady;
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
      ServerCallHandler<Q, A> next) {
    String why = notReady.get();
    if (why != null && call.getMethodDescriptor().getServiceName() != null
        && call.getMethodDescriptor().getServiceName().startsWith("brook.")) {
      call.close(Status.UNAVAILABLE.withDescription("the broker is " + why), new Metadata());
      return new ServerCall.Listener<>() {};
    }
    return next.startCall(call, headers);
  }
}
