package io.brook.broker.http;

import io.brook.broker.metrics.BrokerMetrics;
import io.brook.broker.outbound.OutboundMemory;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import io.brook.broker.http.relay.Relay;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers /healthz, /readyz, /metrics and /stats (GET and HEAD), and hands the REST relay's paths
 * to {@link RelayExchange}. Anything else: 404 for an unknown path, 405 for another method, 400 for a
 * request Netty could not decode.
 *
 * <p>One request at a time per connection: reading stops while a request is answered (AUTO_READ
 * off; a FlowControlHandler before this holds requests already decoded) and resumes once the
 * answer is written.
 * So a client that pipelines requests and reads no answers holds at most one answer in memory.
 * Probes are answered on the event loop; /metrics and /stats are rendered on the scrape thread,
 * so a slow scrape never delays a probe.
 *
 * <p>Every answer is counted in the broker's {@link OutboundMemory} on its connection's account until
 * it is written: a scrape reserves about the size of the last one before it renders, and waits its
 * turn when memory is short, so clients that read nothing hold at most their share.
 */
@Sharable
final class HttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
  private static final Logger log = LoggerFactory.getLogger(HttpHandler.class);
  private static final String TEXT = "text/plain; charset=utf-8";
  private static final String JSON = "application/json";

  /** What an answer needs of its request, taken before Netty releases the request. */
  record Ask(HttpMethod method, String path, String authorization, boolean clientCertificate,
      boolean keepAlive) {}

  /** The connection's share of the outbound memory (set when the connection opens). */
  static final AttributeKey<OutboundMemory.Account> ACCOUNT = AttributeKey.valueOf("brook.outbound.account");
  /**
   * Set while a relay request is served: reading goes on meanwhile, so a client that goes away is seen
   * at once (a long poll's onGone ends its wait), and a request pipelined meanwhile waits in
   * {@link #HELD} (one at most: reading stops then, and FlowControlHandler keeps the rest).
   */
  static final AttributeKey<Boolean> SERVING = AttributeKey.valueOf("brook.relay.serving");
  static final AttributeKey<FullHttpRequest> HELD = AttributeKey.valueOf("brook.relay.held");
  /** Room for the status line and headers of an answer. */
  private static final int HEADERS = 256;

  private final HttpRoutes routes;
  private final Executor scrapes;
  /** The size of the last /metrics and /stats answers: what the next one reserves before it renders. */
  private final AtomicLong lastMetrics = new AtomicLong(64 << 10);
  private final AtomicLong lastStats = new AtomicLong(64 << 10);

  HttpHandler(HttpRoutes routes, Executor scrapes) {
    this.routes = routes;
    this.scrapes = scrapes;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    ctx.channel().config().setAutoRead(false); // until this request is answered
    if (Boolean.TRUE.equals(ctx.channel().attr(SERVING).get())) {
      ctx.channel().attr(HELD).set(request.retain()); // pipelined behind a relay request: served after it
      return;
    }
    if (!request.decoderResult().isSuccess()) {
      FullHttpResponse response = text(HttpResponseStatus.BAD_REQUEST, "bad request\n");
      HttpUtil.setKeepAlive(response, false);
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    QueryStringDecoder uri = new QueryStringDecoder(request.uri());
    Ask ask = new Ask(request.method(), uri.path(),
        request.headers().get(HttpHeaderNames.AUTHORIZATION), verifiedClientCertificate(ctx),
        HttpUtil.isKeepAlive(request));
    OutboundMemory.Account account = ctx.channel().attr(ACCOUNT).get();
    Relay relay = routes.relay();
    boolean relayPath = relay != null && relay.handles(ask.path());
    if (request.content().readableBytes() > BodyLimits.limit(relay, ask.path())) { // a chunked body over its limit
      FullHttpResponse response = BodyLimits.tooLarge(relayPath, BodyLimits.limit(relay, ask.path()));
      HttpUtil.setKeepAlive(response, false);
      ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
      return;
    }
    if (relayPath) {
      ctx.channel().attr(SERVING).set(true);
      RelayExchange.serve(ctx, relay, request, uri, ask.keepAlive(), account, tlsSession(ctx));
      ctx.channel().config().setAutoRead(true); // so a client that closes while it waits is seen
      return;
    }
    FullHttpResponse quick = quickAnswer(ask);
    if (quick != null) {
      send(ctx, ask, quick, account, 0);
      return;
    }
    long estimate = (ask.path().equals("/metrics") ? lastMetrics : lastStats).get();
    OutboundMemory.Waiter w = account.reserve(estimate, () -> scrapeLater(ctx, ask, account, estimate));
    if (w == null) {
      scrapeLater(ctx, ask, account, estimate);
    }
  }

  /** Renders on the scrape thread (memory for the answer is reserved), then writes on the event loop. */
  private void scrapeLater(ChannelHandlerContext ctx, Ask ask, OutboundMemory.Account account, long reserved) {
    try {
      scrapes.execute(() -> {
        FullHttpResponse scraped = scrape(ask);
        (ask.path().equals("/metrics") ? lastMetrics : lastStats).set(scraped.content().readableBytes() + HEADERS);
        ctx.channel().eventLoop().execute(() -> send(ctx, ask, scraped, account, reserved));
      });
    } catch (RejectedExecutionException e) { // the server is closing
      account.release(reserved);
      ctx.close();
    }
  }

  /**
   * Writes the answer, its memory counted until it is written ({@code reserved} made its real size),
   * then reads the next request (or closes the connection).
   */
  static void send(ChannelHandlerContext ctx, Ask ask, FullHttpResponse response,
      OutboundMemory.Account account, long reserved) {
    if (ask.method().equals(HttpMethod.HEAD)) { // same headers (the GET's length), no body
      FullHttpResponse full = response;
      response = full.replace(Unpooled.EMPTY_BUFFER);
      full.release();
    }
    long size = response.content().readableBytes() + HEADERS;
    account.resize(reserved, size);
    HttpUtil.setKeepAlive(response, ask.keepAlive());
    ctx.writeAndFlush(response).addListener((ChannelFutureListener) f -> {
      account.release(size);
      if (ask.keepAlive() && f.isSuccess()) {
        ctx.channel().attr(SERVING).set(null);
        FullHttpRequest held = ctx.channel().attr(HELD).getAndSet(null);
        if (held == null) {
          ctx.channel().config().setAutoRead(true); // the next request (one held back, or a new read)
          return;
        }
        try {
          ((HttpHandler) ctx.handler()).channelRead0(ctx, held);
        } finally {
          held.release();
        }
      } else {
        ctx.close();
      }
    });
  }

  /** The connection's TLS session, or null for plaintext. */
  private static SSLSession tlsSession(ChannelHandlerContext ctx) {
    SslHandler tls = ctx.pipeline().get(SslHandler.class);
    return tls == null ? null : tls.engine().getSession();
  }

  /** Whether the TLS handshake verified a client certificate (only with tls.client.ca.file). */
  private static boolean verifiedClientCertificate(ChannelHandlerContext ctx) {
    SslHandler tls = ctx.pipeline().get(SslHandler.class);
    if (tls == null) {
      return false;
    }
    try {
      return tls.engine().getSession().getPeerCertificates().length > 0;
    } catch (SSLPeerUnverifiedException e) {
      return false;
    }
  }

  /** The answer that needs no scrape, or null for an allowed /metrics or /stats. */
  private FullHttpResponse quickAnswer(Ask ask) {
    boolean known = switch (ask.path()) {
      case "/healthz", "/readyz", "/metrics", "/stats" -> true;
      default -> false;
    };
    if (!known) {
      return text(HttpResponseStatus.NOT_FOUND, "not found: try /healthz, /readyz, /metrics or /stats\n");
    }
    if (!ask.method().equals(HttpMethod.GET) && !ask.method().equals(HttpMethod.HEAD)) {
      FullHttpResponse r = text(HttpResponseStatus.METHOD_NOT_ALLOWED, "method not allowed: use GET or HEAD\n");
      r.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD");
      return r;
    }
    switch (ask.path()) {
      case "/healthz":
        return text(HttpResponseStatus.OK, "ok\n");
      case "/readyz": {
        String reason = routes.notReadyReason().get();
        return reason == null ? text(HttpResponseStatus.OK, "ready\n")
            : text(HttpResponseStatus.SERVICE_UNAVAILABLE, reason + "\n");
      }
      default:
        break;
    }
    if (!routes.access().allowed(ask.authorization(), ask.clientCertificate())) {
      FullHttpResponse r = text(HttpResponseStatus.UNAUTHORIZED, "unauthorized\n");
      r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer");
      return r;
    }
    return null;
  }

  /** /metrics or /stats, on the scrape thread. */
  private FullHttpResponse scrape(Ask ask) {
    try {
      if (ask.path().equals("/metrics")) {
        ByteBuf body = Unpooled.buffer(16 << 10);
        try (ByteBufOutputStream out = new ByteBufOutputStream(body)) {
          routes.metrics().scrape(out);
        } catch (IOException | RuntimeException e) {
          body.release();
          throw e;
        }
        return response(HttpResponseStatus.OK, body, BrokerMetrics.CONTENT_TYPE);
      }
      String json = StatsJson.render(routes.stats(), System.currentTimeMillis()) + "\n";
      return response(HttpResponseStatus.OK, Unpooled.copiedBuffer(json, StandardCharsets.UTF_8), JSON);
    } catch (IOException | RuntimeException e) {
      log.warn("HTTP {} {} failed: {}", ask.method(), ask.path(), e.toString());
      return text(HttpResponseStatus.INTERNAL_SERVER_ERROR, "internal error\n");
    }
  }

  private static FullHttpResponse text(HttpResponseStatus status, String body) {
    return response(status, Unpooled.copiedBuffer(body, StandardCharsets.UTF_8), TEXT);
  }

  private static FullHttpResponse response(HttpResponseStatus status, ByteBuf body, String contentType) {
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
    r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
    r.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
    return r;
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    FullHttpRequest held = ctx.channel().attr(HELD).getAndSet(null);
    if (held != null) {
      held.release();
    }
    super.channelInactive(ctx);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // A client that resets, speaks plain HTTP to the TLS port, or sends garbage: close, no stack trace.
    log.debug("HTTP connection from {} closed: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
