package io.brook.broker.api;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.function.BooleanSupplier;

/**
 * Answers brook.v1 calls with UNAVAILABLE until storage recovery is done (health and reflection stay
 * reachable, so probes and grpcurl see NOT_SERVING rather than a closed port).
 */
public final class ReadinessInterceptor implements ServerInterceptor {
  private final BooleanSupplier ready;

  public ReadinessInterceptor(BooleanSupplier ready) {
    this.ready = ready;
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
      ServerCallHandler<Q, A> next) {
    if (!ready.getAsBoolean() && call.getMethodDescriptor().getServiceName() != null
        && call.getMethodDescriptor().getServiceName().startsWith("brook.")) {
      call.close(Status.UNAVAILABLE.withDescription("the broker is starting: storage recovery is not finished"),
          new Metadata());
      return new ServerCall.Listener<>() {};
    }
    return next.startCall(call, headers);
  }
}
