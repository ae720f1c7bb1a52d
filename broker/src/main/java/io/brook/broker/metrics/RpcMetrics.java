package io.brook.broker.metrics;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.ErrorInfo;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The server-wide interceptor that times every call from its start to its close and counts the
 * calls the broker answered with an error, by the ErrorInfo reason it sent (else the status code).
 * It sits outside every other interceptor, so refusals by the readiness gate and the request guard
 * count too. Calls the client cancelled are timed (code CANCELLED) but not counted as rejected.
 */
public final class RpcMetrics implements ServerInterceptor, ApiObserver {
  private static final double[] BOUNDS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
      5, 10, 30, 60, 300};
  private final Histogram duration;
  private final Histogram produce;
  private final Counter rejected;

  RpcMetrics(PrometheusRegistry registry) {
    duration = Histogram.builder().name("brook_rpc_duration_seconds")
        .help("Time from a gRPC call's start to its close, by full method name and status code; for streams "
            + "this is the stream's whole lifetime.")
        .labelNames("method", "code").classicOnly().classicUpperBounds(BOUNDS).register(registry);
    rejected = Counter.builder().name("brook_rejected_requests_total")
        .help("gRPC calls the broker answered with an error status, by the google.rpc.ErrorInfo reason it sent "
            + "(the status code name when it sent none) and the status code; a batch refused inside a produce "
            + "answer counts too, with the code its error has as a call's status.")
        .labelNames("reason", "code").register(registry);
    produce = Histogram.builder().name("brook_produce_request_duration_seconds")
        .help("Time from a produce request's arrival (unary, or one request of a produce stream) to its answer "
            + "being ready; SYNCED requests include the force.")
        .classicOnly().classicUpperBounds(BOUNDS).register(registry);
  }

  @Override
  public <Q, A> ServerCall.Listener<Q> interceptCall(ServerCall<Q, A> call, Metadata headers,
      ServerCallHandler<Q, A> next) {
    long start = System.nanoTime();
    String method = call.getMethodDescriptor().getFullMethodName();
    AtomicBoolean done = new AtomicBoolean();
    ServerCall<Q, A> timed = new SimpleForwardingServerCall<>(call) {
      @Override
      public void close(Status status, Metadata trailers) {
        if (done.compareAndSet(false, true)) {
          record(method, start, status, trailers);
        }
        super.close(status, trailers);
      }
    };
    return new SimpleForwardingServerCallListener<>(next.startCall(timed, headers)) {
      @Override
      public void onCancel() {
        if (done.compareAndSet(false, true)) {
          record(method, start, Status.CANCELLED, null);
        }
        super.onCancel();
      }
    };
  }

  @Override
  public void refused(String reason, String code) {
    rejected.labelValues(reason, code).inc();
  }

  @Override
  public void produceAnswered(long nanos) {
    produce.observe(nanos / 1e9);
  }

  private void record(String method, long startNanos, Status status, Metadata trailers) {
    Status.Code code = status.getCode();
    duration.labelValues(method, code.name()).observe((System.nanoTime() - startNanos) / 1e9);
    if (code != Status.Code.OK && code != Status.Code.CANCELLED) {
      rejected.labelValues(reason(status, trailers), code.name()).inc();
    }
  }

  /** The ErrorInfo reason of the answer (UNKNOWN_TOPIC, NOT_ENOUGH_DISK, ...), else the status code. */
  private static String reason(Status status, Metadata trailers) {
    com.google.rpc.Status details = trailers == null ? null : StatusProto.fromStatusAndTrailers(status, trailers);
    if (details != null) {
      for (Any any : details.getDetailsList()) {
        if (any.is(ErrorInfo.class)) {
          try {
            return any.unpack(ErrorInfo.class).getReason();
          } catch (InvalidProtocolBufferException e) {
            break;
          }
        }
      }
    }
    return status.getCode().name();
  }
}
