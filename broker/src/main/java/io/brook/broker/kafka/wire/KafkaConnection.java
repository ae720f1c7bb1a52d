package io.brook.broker.kafka.wire;

import io.brook.broker.kafka.AnswerMemory;
import io.brook.broker.kafka.ConnectionScope;
import io.brook.broker.kafka.KafkaApis;
import io.brook.broker.kafka.KafkaListenerInfo;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.kafka.access.AuthenticationGate;
import io.brook.broker.metrics.KafkaObserver;
import io.brook.broker.outbound.OutboundMemory;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateEvent;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Kafka client connection, after the frame decoder: decodes each request, hands it to its API
 * (a {@link io.brook.broker.kafka.KafkaApi#quick quick} one on this event loop, any other on the
 * worker pool, one at a time in request order either way, so an API sees a connection's requests in
 * order and a slow one holds up no other connection), and writes the answers in request order
 * however their futures complete. Every answer is counted on the connection's account of the
 * broker's outbound memory until it is written. Reading pauses while {@code maxInflight} requests
 * wait for their answers or while the socket does not take what was written (a client that does not
 * read), and resumes as they drain; a refused request or a failed API closes the connection, and a
 * closed connection releases what its requests still hold (long polls, memory).
 */
final class KafkaConnection extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(KafkaConnection.class);

  private final KafkaApis apis;
  private final Supplier<KafkaListenerInfo> listener;
  private final int maxInflight;
  private final KafkaObserver observer;
  private final OutboundMemory outbound;
  /** The connection's handlers that are not quick, one at a time in request order. */
  private final SerialExecutor work;
  /** Null with auth off. */
  private final AuthenticationGate gate;
  /** The largest frame read from a connection that has not authenticated yet, as Kafka's default. */
  static final int UNAUTHENTICATED_MAX_FRAME = 512 * 1024;
  private final ArrayDeque<PendingAnswer> pending = new ArrayDeque<>();
  private ChannelHandlerContext ctx;
  private ConnectionScope scope;
  private InetSocketAddress remote;
  private boolean closing;

  /** @param gate what may be sent before authenticating, or null with auth off */
  KafkaConnection(KafkaApis apis, Supplier<KafkaListenerInfo> listener, int maxInflight, KafkaObserver observer,
      OutboundMemory outbound, Executor workers, AuthenticationGate gate) {
    this.apis = apis;
    this.gate = gate;
    this.listener = listener;
    this.maxInflight = maxInflight;
    this.observer = observer;
    this.outbound = outbound;
    this.work = new SerialExecutor(workers);
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    this.ctx = ctx;
    remote = (InetSocketAddress) ctx.channel().remoteAddress();
    scope = new ConnectionScope(outbound.open(), work, gate != null);
    super.channelActive(ctx);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf frame = (ByteBuf) msg;
    if (closing) {
      frame.release();
      return;
    }
    if (gate != null && !scope.isAuthenticated() && frame.readableBytes() > UNAUTHENTICATED_MAX_FRAME) {
      // Nobody is known yet: no large frame is copied or decoded for them (Kafka's sasl.server.max.receive.size).
      int size = frame.readableBytes();
      frame.release();
      refuse("unauthenticated", "a frame of " + size + " bytes before authentication (at most "
          + UNAUTHENTICATED_MAX_FRAME + " until the client authenticates)");
      return;
    }
    // A heap copy the request data may point into (records, bytes fields) however long the API keeps it.
    byte[] bytes = new byte[frame.readableBytes()];
    frame.readBytes(bytes);
    frame.release();
    InboundRequest request;
    try {
      request = InboundRequest.decode(ByteBuffer.wrap(bytes), apis);
    } catch (RefusedRequest e) {
      refuse(e.reason, e.getMessage());
      return;
    }
    PendingAnswer answer = new PendingAnswer(request, System.nanoTime(), new AnswerMemory(scope));
    pending.addLast(answer);
    if (request.unsupportedApiVersions()) {
      complete(answer, InboundRequest.unsupportedAnswer(apis), null);
    } else if (request.api().quick() && work.idle()) { // nothing of this connection runs elsewhere: order kept
      handle(answer);
    } else {
      try {
        work.execute(() -> handle(answer));
      } catch (RejectedExecutionException stopping) {
        complete(answer, null, stopping);
      }
    }
    updateAutoRead();
  }

  private static boolean fireAndForget(InboundRequest request) {
    return request.body() instanceof ProduceRequestData produce && produce.acks() == 0;
  }

  /** Calls the request's API (on this event loop or a worker); its answer is recorded on the event loop. */
  private void handle(PendingAnswer answer) {
    InboundRequest request = answer.request;
    CompletableFuture<ApiMessage> future;
    if (!ctx.channel().isActive() && !fireAndForget(request)) {
      // Closed (by the client, or the broker stopping) while this waited its turn: nobody reads the
      // answer and Kafka clients send again what was not answered, so it is not started. A Produce with
      // acks=0 is never sent again: the client counts it sent once written, and may close right after.
      future = CompletableFuture.failedFuture(new ClosedChannelException());
    } else if (gate != null && !gate.admits(request.key(), scope, this::tlsSession)) {
      // Asked here, in request order, so a request behind a SaslAuthenticate sees its outcome.
      future = CompletableFuture.failedFuture(new Unauthenticated(request.key().name));
    } else {
      try {
        future = request.api().handle(new KafkaRequest(request.version(), request.correlationId(),
            request.clientId(), request.body(), listener.get(), remote, answer.memory));
      } catch (Throwable e) { // an Error too (a codec's native library, a deep batch): the request fails, the loop goes on
        future = CompletableFuture.failedFuture(e);
      }
    }
    future.whenComplete((response, failure) -> {
      if (ctx.executor().inEventLoop()) {
        complete(answer, response, failure);
      } else {
        ctx.executor().execute(() -> complete(answer, response, failure));
      }
    });
  }

  /** On the event loop: records an answer, then writes every answer at the head that is ready. */
  private void complete(PendingAnswer answer, ApiMessage response, Throwable failure) {
    answer.done = true;
    answer.response = response;
    answer.failure = failure;
    boolean wrote = false;
    while (!closing && !pending.isEmpty() && pending.peekFirst().done) {
      PendingAnswer head = pending.pollFirst();
      InboundRequest r = head.request;
      if (head.failure instanceof Unauthenticated) {
        refuse("unauthenticated", head.failure.getMessage());
        return;
      }
      if (head.failure != null) {
        refuse("handler_failed", "the " + r.key().name + " v" + r.version() + " handler failed: " + head.failure);
        return;
      }
      if (head.response == null) {
        head.memory.giveBack();
        observer.answered(r.key().name, System.nanoTime() - head.startNanos, Map.of());
        continue; // no answer expected (acks=0): the next one keeps its place
      }
      short version = r.unsupportedApiVersions() ? 0 : r.version();
      ByteBuf frame = null;
      Map<String, Integer> errors;
      try {
        frame = ResponseEncoder.encode(ctx.alloc(), r.key(), version, r.correlationId(), head.response);
        errors = AnswerErrors.of(r.key(), version, frame);
      } catch (RuntimeException e) {
        if (frame != null) {
          frame.release(); // encoded, but its errors could not be counted: never written
        }
        head.memory.giveBack();
        refuse("handler_failed", "the " + r.key().name + " v" + r.version() + " answer could not be encoded: " + e);
        return;
      }
      observer.answered(r.key().name, System.nanoTime() - head.startNanos, errors);
      AnswerMemory memory = head.memory;
      memory.resize(frame.readableBytes()); // held as encoded until the socket took it
      ctx.write(frame).addListener(written -> memory.giveBack());
      wrote = true;
    }
    if (wrote) {
      ctx.flush();
    }
    updateAutoRead();
  }

  /** The TLS session of the connection, or null on plaintext. */
  private SSLSession tlsSession() {
    SslHandler tls = ctx.pipeline().get(SslHandler.class);
    return tls == null ? null : tls.engine().getSession();
  }

  /** A request the connection may not send before it authenticated: it closes, as Kafka's SASL listeners do. */
  private static final class Unauthenticated extends Exception {
    Unauthenticated(String api) {
      super("a " + api + " request before authenticating (auth.enabled: only ApiVersions, SaslHandshake and "
          + "SaslAuthenticate come first, unless a client certificate or auth.anonymous stands in)", null, false, false);
    }
  }

  /** Reads on while fewer than maxInflight requests wait and the socket takes what is written. */
  private void updateAutoRead() {
    if (closing) {
      return;
    }
    boolean read = pending.size() < maxInflight && ctx.channel().isWritable();
    if (ctx.channel().config().isAutoRead() != read) {
      ctx.channel().config().setAutoRead(read);
    }
  }

  /** Nothing read or written for kafka.connections.max.idle.ms: closed, as Kafka does; the client reconnects. */
  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
    if (evt instanceof IdleStateEvent) {
      PendingAnswer head = pending.peekFirst();
      if (head != null && !head.done) {
        return; // the broker owes the answer (a JoinGroup held for the rebalance): the client is not idle
      }
      log.debug("Kafka connection from {} closed: idle for kafka.connections.max.idle.ms", remote);
      closing = true;
      ctx.close();
      return;
    }
    super.userEventTriggered(ctx, evt);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
    updateAutoRead();
    super.channelWritabilityChanged(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    closing = true;
    pending.clear(); // answers still to come are dropped as they complete
    if (scope != null) {
      scope.close(); // long polls and waits for memory end now; what the answers held is free
    }
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof TooLongFrameException) {
      refuse("oversize_frame", "a frame above max.request.bytes (" + cause.getMessage() + ")");
    } else if (cause instanceof DecoderException && cause.getCause() instanceof SSLException ssl) {
      refuse("tls", "TLS failed: " + ssl.getMessage());
    } else if (cause instanceof DecoderException) {
      refuse("malformed", "bad frame: " + cause.getMessage());
    } else if (cause instanceof IOException) {
      log.debug("Kafka connection from {}: {}", remote, cause.toString()); // the client went away
      closing = true;
      ctx.close();
    } else {
      log.warn("Kafka connection from {} closed: unexpected error", remote, cause);
      closing = true;
      ctx.close();
    }
  }

  /** Closes the connection for what the client sent, with one log line saying why. */
  private void refuse(String reason, String why) {
    if (closing) {
      return;
    }
    closing = true;
    observer.refused(reason);
    log.info("Kafka connection from {} closed: {}", remote, why);
    ctx.close();
  }
}
