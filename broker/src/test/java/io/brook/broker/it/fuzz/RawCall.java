package io.brook.broker.it.fuzz;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A call that sends bytes as they are: the client's marshaller does not check them, so malformed
 * protobuf and wrong message counts (two requests on a unary call, none at all) reach the broker.
 */
final class RawCall {
  static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  /** How the client ends its side. */
  enum Ending { HALF_CLOSE, CANCEL }

  /** The status the call ended with, its trailers, and the messages the broker sent before it. */
  record Outcome(Status status, Metadata trailers, int responses) {}

  private RawCall() {}

  static MethodDescriptor<byte[], byte[]> method(String fullName, MethodDescriptor.MethodType type) {
    return MethodDescriptor.<byte[], byte[]>newBuilder(BYTES, BYTES).setFullMethodName(fullName).setType(type)
        .build();
  }

  /**
   * Starts the call, sends {@code messages}, then half-closes, or cancels {@code cancelAfterMs}
   * later (the broker may be working on the messages meanwhile). The future completes when the call
   * has a status; the deadline makes a broker that never answers fail the call.
   */
  static CompletableFuture<Outcome> start(Channel channel, MethodDescriptor<byte[], byte[]> method,
      List<byte[]> messages, Ending ending, long cancelAfterMs, long deadlineMs, ScheduledExecutorService timer) {
    CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    ClientCall<byte[], byte[]> call = channel.newCall(method,
        CallOptions.DEFAULT.withDeadlineAfter(deadlineMs, TimeUnit.MILLISECONDS));
    AtomicInteger responses = new AtomicInteger();
    call.start(new ClientCall.Listener<>() {
      @Override
      public void onMessage(byte[] message) {
        responses.incrementAndGet();
        call.request(1);
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        outcome.complete(new Outcome(status, trailers, responses.get()));
      }
    }, new Metadata());
    call.request(1);
    for (byte[] m : messages) {
      call.sendMessage(m);
    }
    if (ending == Ending.CANCEL) {
      timer.schedule(() -> call.cancel("the fuzz test cancels this call on purpose", null), cancelAfterMs,
          TimeUnit.MILLISECONDS);
    } else {
      call.halfClose();
    }
    return outcome;
  }
}
