package io.brook.broker.http;

import io.brook.broker.config.BrokerKeys;
import io.brook.broker.http.relay.Relay;
import io.brook.broker.http.relay.RelayException;
import io.brook.broker.http.relay.RelayReply;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Collects a request's body up to its path's limit: the relay's routes take up to max.request.bytes
 * (a produce carries records), everything else {@link #PROBE_BYTES} (probes and scrapes carry no body).
 * A declared Content-Length over the limit is refused before its body is read (413, JSON on relay
 * paths), and the connection closed; a chunked body is cut at the larger of the two limits here and
 * checked against its path's limit by the handler.
 */
final class BodyLimits extends HttpObjectAggregator {
  /** Requests to probes, /metrics and /stats carry no body worth having. */
  static final int PROBE_BYTES = 64 << 10;

  private final Relay relay;

  BodyLimits(Relay relay) {
    super(relay == null ? PROBE_BYTES : Math.max(PROBE_BYTES, relay.maxBodyBytes()), true); // true: close after a refused 100-continue
    this.relay = relay;
  }

  /** The most bytes a request's body to {@code path} may have. */
  static int limit(Relay relay, String path) {
    return relay != null && relay.handles(path) ? relay.maxBodyBytes() : PROBE_BYTES;
  }

  @Override
  protected boolean isContentLengthInvalid(HttpMessage start, int maxContentLength) {
    return HttpUtil.getContentLength(start, -1L) > limit(start);
  }

  @Override
  protected Object newContinueResponse(HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
    if (HttpUtil.is100ContinueExpected(start) && isContentLengthInvalid(start, maxContentLength)) {
      FullHttpResponse r = tooLarge(start);
      HttpUtil.setKeepAlive(r, false);
      return r; // a 4xx: the aggregator skips the body that would follow
    }
    return super.newContinueResponse(start, maxContentLength, pipeline);
  }

  @Override
  protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
    FullHttpResponse r = tooLarge(oversized);
    HttpUtil.setKeepAlive(r, false);
    ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
  }

  private int limit(HttpMessage m) {
    return m instanceof HttpRequest req ? limit(relay, new QueryStringDecoder(req.uri()).path()) : PROBE_BYTES;
  }

  private FullHttpResponse tooLarge(HttpMessage m) {
    int limit = limit(m);
    String path = m instanceof HttpRequest req ? new QueryStringDecoder(req.uri()).path() : "";
    return tooLarge(relay != null && relay.handles(path), limit);
  }

  /** The 413 for a body over {@code limit}: JSON on relay paths, text elsewhere. */
  static FullHttpResponse tooLarge(boolean relayPath, int limit) {
    if (relayPath) {
      return RelayResponses.toNetty(RelayReply.error(RelayException.tooLarge("the request body is larger than "
          + limit + " bytes (" + BrokerKeys.MAX_REQUEST_BYTES.name() + ")", BrokerKeys.MAX_REQUEST_BYTES.name(),
          limit).error()));
    }
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
        Unpooled.copiedBuffer("request body too large: at most " + limit + " bytes\n", StandardCharsets.UTF_8));
    r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
    r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, r.content().readableBytes());
    r.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
    return r;
  }
}
