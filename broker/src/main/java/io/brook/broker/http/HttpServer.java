package io.brook.broker.http;

import io.brook.broker.config.BrokerKeys;
import io.brook.broker.outbound.OutboundMemory;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The broker's HTTP/1.1 server for probes, metrics, stats and the REST relay, on its own port and one small event
 * loop (apart from gRPC's). With an SslContext it serves HTTPS only.
 */
public final class HttpServer implements AutoCloseable {
  /** A connection that sends nothing for this long is closed, so idle or stuck clients hold nothing. */
  private static final int IDLE_TIMEOUT_S = 60;
  /** Open connections at most; more are closed at once (each holds a file descriptor the broker needs). */
  private static final int MAX_CONNECTIONS = 256;

  private final EventLoopGroup group;
  private final ExecutorService scrapes;
  private final Channel channel;
  private final boolean tls;

  private HttpServer(EventLoopGroup group, ExecutorService scrapes, Channel channel, boolean tls) {
    this.group = group;
    this.scrapes = scrapes;
    this.channel = channel;
    this.tls = tls;
  }

  /** Binds and serves; fails with an IOException naming the address when it cannot bind. */
  public static HttpServer start(InetSocketAddress listen, SslContext ssl, HttpRoutes routes, OutboundMemory outbound)
      throws IOException {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("brook-http", true),
        NioIoHandler.newFactory());
    ExecutorService scrapes = Executors.newSingleThreadExecutor(new DefaultThreadFactory("brook-http-scrape", true));
    HttpHandler handler = new HttpHandler(routes, scrapes);
    AtomicInteger open = new AtomicInteger();
    ServerBootstrap b = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            if (open.incrementAndGet() > MAX_CONNECTIONS) {
              open.decrementAndGet();
              ch.close();
              return;
            }
            OutboundMemory.Account account = outbound.open();
            ch.attr(HttpHandler.ACCOUNT).set(account);
            ch.closeFuture().addListener(f -> {
              open.decrementAndGet();
              account.close();
            });
            ChannelPipeline p = ch.pipeline();
            if (ssl != null) {
              p.addLast(ssl.newHandler(ch.alloc()));
            }
            p.addLast(new ReadTimeoutHandler(IDLE_TIMEOUT_S, TimeUnit.SECONDS));
            p.addLast(new HttpServerCodec());
            p.addLast(new BodyLimits(routes.relay())); // a body over its path's limit: 413
            p.addLast(new FlowControlHandler()); // holds pipelined requests until HttpHandler reads
            p.addLast(handler);
          }
        });
    try {
      Channel ch = b.bind(new InetSocketAddress(listen.getHostString(), listen.getPort())).sync().channel();
      return new HttpServer(group, scrapes, ch, ssl != null);
    } catch (Exception e) { // bind failures arrive as checked exceptions Netty does not declare
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      scrapes.shutdownNow();
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      String message = "cannot listen for HTTP on " + listen.getHostString() + ":" + listen.getPort() + " ("
          + BrokerKeys.HTTP_LISTEN.name() + "): " + e.getMessage();
      if (e instanceof java.net.BindException) {
        throw new java.net.BindException(message);
      }
      throw new IOException(message, e);
    }
  }

  public int port() {
    return ((InetSocketAddress) channel.localAddress()).getPort();
  }

  public String scheme() {
    return tls ? "https" : "http";
  }

  @Override
  public void close() {
    channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    scrapes.shutdownNow();
  }
}
