package io.brook.broker.api;

import com.google.protobuf.Message;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.StatusRuntimeException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Answers what gRPC cannot hand to a service with INVALID_ARGUMENT and a message saying what was
 * wrong: bytes that are not a protobuf message of the request type, and unary or server-streaming
 * calls that send no request or more than one. Left to gRPC, malformed bytes are answered UNKNOWN
 * ("Application error processing RPC") with a stack trace in the log, a missing request INTERNAL,
 * and a second request a bare RST_STREAM.
 *
 * <p>How: each method is served with a request marshaller that never throws (a parse failure
 * becomes a {@link Malformed} value), and declared client-streaming, so gRPC's own one-request
 * check stays out of the way and this class does it. The service itself still sees its own method
 * descriptor and typed requests; the proto schema (reflection) is unchanged.
 */
public final class RequestGuard {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(RequestGuard.class);
  private RequestGuard() {}

  /** A request that did not parse, and why. */
  private record Malformed(String why) {}

  public static ServerServiceDefinition guard(ServerServiceDefinition service) {
    ServiceDescriptor original = service.getServiceDescriptor();
    ServiceDescriptor.Builder descriptor = ServiceDescriptor.newBuilder(original.getName())
        .setSchemaDescriptor(original.getSchemaDescriptor());
    List<ServerMethodDefinition<?, ?>> methods = new ArrayList<>();
    for (ServerMethodDefinition<?, ?> m : service.getMethods()) {
      ServerMethodDefinition<?, ?> guarded = guard(m);
      descriptor.addMethod(guarded.getMethodDescriptor());
      methods.add(guarded);
    }
    ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(descriptor.build());
    methods.forEach(b::addMethod);
    return b.build();
  }

  private static <Q, A> ServerMethodDefinition<Object, A> guard(ServerMethodDefinition<Q, A> def) {
    MethodDescriptor<Q, A> method = def.getMethodDescriptor();
    MethodDescriptor.Marshaller<Object> lenient = new MethodDescriptor.Marshaller<>() {
      @Override
      public InputStream stream(Object value) {
        @SuppressWarnings("unchecked")
        Q request = (Q) value;
        return method.streamRequest(request);
      }

      @Override
      public Object parse(InputStream stream) {
        try {
          return method.parseRequest(stream);
        } catch (RuntimeException e) { // protobuf's InvalidProtocolBufferException, wrapped by gRPC
          Throwable why = e.getCause() != null ? e.getCause() : e;
          return new Malformed(why.getMessage());
        }
      }
    };
    MethodType type = method.getType().clientSendsOneMessage()
        ? (method.getType() == MethodType.UNARY ? MethodType.CLIENT_STREAMING : MethodType.BIDI_STREAMING)
        : method.getType();
    MethodDescriptor<Object, A> guarded = method.toBuilder(lenient, method.getResponseMarshaller()).setType(type)
        .build();
    ServerCallHandler<Object, A> handler = (call, headers) -> {
      GuardedCall<Q, A> typed = new GuardedCall<>(call, method);
      if (!method.getType().clientSendsOneMessage()) {
        typed.sendHeadersNow();
      }
      return new GuardedListener<>(def.getServerCallHandler().startCall(typed, headers), typed, method);
    };
    return ServerMethodDefinition.create(guarded, handler);
  }

  /**
   * The call as the service sees it: its own method descriptor; once the guard has answered,
   * further headers, messages and closes from the service are dropped (the stream is over). The
   * guard may answer from a gRPC thread while the service writes from its own (a Receive stream's
   * dispatch), so every write goes through this object's monitor: headers written after the
   * trailers make Netty end the whole connection (GOAWAY, "unexpected state HALF_CLOSED_LOCAL").
   */
  private static final class GuardedCall<Q, A> extends ForwardingServerCall<Q, A> {
    private final ServerCall<Object, A> call;
    private final MethodDescriptor<Q, A> method;
    private boolean closed;
    private boolean headersSent;

    GuardedCall(ServerCall<Object, A> call, MethodDescriptor<Q, A> method) {
      this.call = call;
      this.method = method;
    }

    @Override
    @SuppressWarnings("unchecked")
    protected ServerCall<Q, A> delegate() {
      return (ServerCall<Q, A>) (ServerCall<?, A>) call; // requests never pass through the call itself
    }

    @Override
    public MethodDescriptor<Q, A> getMethodDescriptor() {
      return method;
    }

    /**
     * Client streams get their response headers before any request is read. A request over
     * max.request.bytes later on then makes gRPC reset the stream (the client sees CANCELLED). With
     * no headers out, gRPC answers it with trailers instead, and an answer the service was about to
     * write (a SYNCED produce waiting for its force) followed them: Netty takes that for a protocol
     * error and ends the client's whole connection (GOAWAY), failing all its other calls.
     */
    synchronized void sendHeadersNow() {
      headersSent = true;
      call.sendHeaders(new Metadata());
    }

    @Override
    public synchronized void sendHeaders(Metadata headers) {
      if (!closed && !headersSent) { // the services send no headers of their own: empty ones went out
        headersSent = true;
        call.sendHeaders(headers);
      }
    }

    /** Every answer of every method passes here: none goes out over the {@link AnswerCap}. */
    @Override
    public synchronized void sendMessage(A message) {
      if (closed) {
        return;
      }
      io.brook.broker.errors.LimitExceededException tooLarge = AnswerCap.check(message);
      if (tooLarge != null) {
        log.info("{}: {}", method.getFullMethodName(), tooLarge.getMessage());
        io.grpc.StatusRuntimeException status = Errors.toStatus(tooLarge);
        closed = true;
        call.close(status.getStatus(), status.getTrailers() != null ? status.getTrailers() : new Metadata());
        return;
      }
      call.sendMessage(message);
    }

    @Override
    public synchronized void close(io.grpc.Status status, Metadata trailers) {
      if (!closed) {
        closed = true;
        call.close(status, trailers);
      }
    }

    @Override
    public synchronized boolean isCancelled() {
      return closed || call.isCancelled();
    }

    synchronized boolean isClosed() {
      return closed;
    }
  }

  private static final class GuardedListener<Q, A> extends ServerCall.Listener<Object> {
    private final ServerCall.Listener<Q> inner;
    private final GuardedCall<Q, A> call;
    private final MethodDescriptor<Q, A> method;
    private int requests;
    private boolean refused;

    GuardedListener(ServerCall.Listener<Q> inner, GuardedCall<Q, A> call, MethodDescriptor<Q, A> method) {
      this.inner = inner;
      this.call = call;
      this.method = method;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void onMessage(Object message) {
      if (refused) {
        return;
      }
      requests++;
      if (message instanceof Malformed m) {
        refuse("request " + requests + " is not a valid " + requestType() + ": " + m.why());
      } else if (requests > 1 && method.getType().clientSendsOneMessage()) {
        refuse(method.getBareMethodName() + " takes exactly one request message, got a second one");
      } else {
        inner.onMessage((Q) message);
      }
    }

    @Override
    public void onHalfClose() {
      if (refused) {
        return;
      }
      if (requests == 0 && method.getType().clientSendsOneMessage()) {
        refuse(method.getBareMethodName() + " takes exactly one request message, got none");
      } else {
        inner.onHalfClose();
      }
    }

    @Override
    public void onCancel() {
      if (!refused) {
        inner.onCancel();
      }
    }

    @Override
    public void onComplete() {
      if (!refused) {
        inner.onComplete();
      }
    }

    @Override
    public void onReady() {
      if (!refused) {
        inner.onReady();
      }
    }

    /** Answers INVALID_ARGUMENT, and tells the service its call is over (as if the client cancelled). */
    private void refuse(String why) {
      refused = true;
      if (call.isClosed()) {
        return; // the service answered already
      }
      StatusRuntimeException status = Errors.invalid(why);
      call.close(status.getStatus(), status.getTrailers() != null ? status.getTrailers() : new Metadata());
      inner.onCancel();
    }

    /** The protobuf type's name, e.g. brook.v1.CreateTopicRequest. */
    private String requestType() {
      if (method.getRequestMarshaller() instanceof MethodDescriptor.PrototypeMarshaller<?> p
          && p.getMessagePrototype() instanceof Message m) {
        return m.getDescriptorForType().getFullName();
      }
      return "request of " + method.getFullMethodName();
    }
  }
}
