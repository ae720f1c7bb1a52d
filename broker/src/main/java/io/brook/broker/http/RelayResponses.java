package io.brook.broker.http;

import io.brook.broker.http.relay.RelayJson;
import io.brook.broker.http.relay.RelayReply;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** A relay reply as a Netty response: the JSON body written by gson, the reply's headers, no caching. */
final class RelayResponses {
  static final String JSON = "application/json";

  private RelayResponses() {}

  static FullHttpResponse toNetty(RelayReply reply) {
    ByteBuf body = reply.body() == null ? Unpooled.EMPTY_BUFFER
        : Unpooled.wrappedBuffer((RelayJson.GSON.toJson(reply.body()) + "\n").getBytes(StandardCharsets.UTF_8));
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(reply.status()),
        body);
    if (reply.body() != null) {
      r.headers().set(HttpHeaderNames.CONTENT_TYPE, JSON);
    }
    r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
    r.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
    for (Map.Entry<String, String> h : reply.headers().entrySet()) {
      r.headers().set(h.getKey(), h.getValue());
    }
    return r;
  }
}
