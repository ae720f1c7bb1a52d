package io.brook.broker.http;

import io.brook.broker.http.relay.Relay;
import io.brook.broker.http.relay.RelayRequest;
import io.brook.broker.outbound.OutboundMemory;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import javax.net.ssl.SSLSession;

/**
 * One relay request on its connection: its parts copied out of Netty's request (released when the
 * handler returns), served by the {@link Relay}, and the reply written on the event loop. Memory a
 * handler reserves for its answer is counted on the connection's outbound account, made the answer's
 * real size when it is written and released once it is.
 */
final class RelayExchange implements RelayRequest.Connection {
  private final ChannelHandlerContext ctx;
  private final OutboundMemory.Account account;
  private final Executor executor;
  /** Guarded by this: bytes reserved for the answer so far, whether it was sent, the close listeners to remove then. */
  private long reserved;
  private boolean sent;
  private final List<ChannelFutureListener> onClose = new ArrayList<>();

  private RelayExchange(ChannelHandlerContext ctx, OutboundMemory.Account account, Executor executor) {
    this.ctx = ctx;
    this.account = account;
    this.executor = executor;
  }

  static void serve(ChannelHandlerContext ctx, Relay relay, FullHttpRequest request, QueryStringDecoder uri,
      boolean keepAlive, OutboundMemory.Account account, SSLSession tls) {
    RelayExchange exchange = new RelayExchange(ctx, account, relay.executor());
    HttpHeaders headers = request.headers().copy();
    byte[] body = ByteBufUtil.getBytes(request.content());
    HttpHandler.Ask ask = new HttpHandler.Ask(request.method(), uri.path(), null, false, keepAlive);
    relay.serve(request.method().name(), uri.path(), uri.parameters(), headers::get, body, tls, exchange)
        .thenAccept(reply -> ctx.channel().eventLoop().execute(() -> {
          long held;
          List<ChannelFutureListener> listeners;
          synchronized (exchange) {
            exchange.sent = true;
            held = exchange.reserved;
            listeners = List.copyOf(exchange.onClose);
          }
          // A keep-alive connection serves many requests: their close hooks must not pile up on it.
          listeners.forEach(l -> ctx.channel().closeFuture().removeListener(l));
          HttpHandler.send(ctx, ask, RelayResponses.toNetty(reply), account, held);
        }));
  }

  @Override
  public CompletableFuture<Void> reserve(long bytes) {
    CompletableFuture<Void> granted = new CompletableFuture<>();
    OutboundMemory.Waiter w = account.reserve(bytes, () -> {
      synchronized (this) {
        reserved += bytes;
      }
      try { // granted on the releasing thread (maybe an event loop): go on where handlers run
        executor.execute(() -> granted.complete(null));
      } catch (RejectedExecutionException stopping) {
        granted.completeExceptionally(stopping);
      }
    });
    if (w == null) {
      synchronized (this) {
        reserved += bytes;
      }
      granted.complete(null);
    }
    return granted;
  }

  @Override
  public void release(long bytes) {
    long back;
    synchronized (this) {
      back = Math.min(bytes, reserved);
      reserved -= back;
    }
    account.release(back);
  }

  @Override
  public void onGone(Runnable r) {
    ChannelFutureListener l = f -> {
      boolean answered;
      synchronized (this) {
        answered = sent;
      }
      if (!answered) {
        r.run();
      }
    };
    synchronized (this) {
      if (sent) {
        return;
      }
      onClose.add(l);
    }
    ctx.channel().closeFuture().addListener(l);
  }
}
