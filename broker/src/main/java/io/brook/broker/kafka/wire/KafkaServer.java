package io.brook.broker.kafka.wire;

import io.brook.broker.kafka.KafkaApis;
import io.brook.broker.kafka.KafkaListenerInfo;
import io.brook.broker.kafka.access.AuthenticationGate;
import io.brook.broker.metrics.KafkaObserver;
import io.brook.broker.outbound.OutboundMemory;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * The Kafka protocol listener: a Netty server whose pipeline is [TLS] → length-prefixed frames (at
 * most max.request.bytes) → one request per read when paused → {@link KafkaConnection}, behind an idle
 * timeout (kafka.connections.max.idle.ms).
 */
public final class KafkaServer implements AutoCloseable {
  /** Answers written and not yet taken by the socket above this pause reading (a client that does not read). */
  private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(256 << 10, 1 << 20);

  private final EventLoopGroup group;
  private final Channel channel;

  private KafkaServer(EventLoopGroup group, Channel channel) {
    this.group = group;
    this.channel = channel;
  }

  /**
   * Binds and serves; fails with an IOException naming the address when it cannot bind.
   *
   * @param listener what clients are told, given the bound address (known only once bound, for port 0)
   * @param outbound the broker's outbound memory: each connection's answers are counted on an account of it
   * @param workers where the handlers that are not quick run (each connection's in its request order)
   */
  public static KafkaServer start(InetSocketAddress listen, SslContext ssl, ConnectionLimits limits, KafkaApis apis, Function<InetSocketAddress, KafkaListenerInfo> listener, KafkaObserver observer,
      OutboundMemory outbound, Executor workers) throws IOException {
    return start(listen, ssl, limits, apis, listener, observer, outbound, workers, null);
  }

  /** @param gate what a connection may send before it authenticated, or null with auth off */
  public static KafkaServer start(InetSocketAddress listen, SslContext ssl, ConnectionLimits limits, KafkaApis apis,
      Function<InetSocketAddress, KafkaListenerInfo> listener, KafkaObserver observer, OutboundMemory outbound,
      Executor workers, AuthenticationGate gate) throws IOException {
    EventLoopGroup group = new MultiThreadIoEventLoopGroup(0, new DefaultThreadFactory("brook-kafka", true),
        NioIoHandler.newFactory());
    AtomicReference<KafkaListenerInfo> info = new AtomicReference<>(); // set once bound, before accepting
    int maxFrame = (int) Math.min(Integer.MAX_VALUE, 4L + limits.maxFrameBytes()); // the decoder counts the prefix
    ServerBootstrap b = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
        .option(ChannelOption.AUTO_READ, false) // no connection is accepted before the listener info is known
        .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            observer.opened();
            ch.closeFuture().addListener(f -> observer.closed());
            ChannelPipeline p = ch.pipeline();
            if (limits.maxIdleMs() > 0) { // first, so that any traffic (a TLS handshake too) counts
              p.addLast(new IdleStateHandler(true, 0, 0, limits.maxIdleMs(), TimeUnit.MILLISECONDS));
            }
            if (ssl != null) {
              p.addLast(ssl.newHandler(ch.alloc()));
            }
            // The length prefix is stripped; a length above the limit fails at once (failFast).
            p.addLast(new LengthFieldBasedFrameDecoder(maxFrame, 0, 4, 0, 4, true));
            p.addLast(new FlowControlHandler()); // while reading is paused, frames already read wait here
            p.addLast(new KafkaConnection(apis, info::get, limits.maxInflight(), observer, outbound, workers, gate));
          }
        });
    try {
      Channel ch = b.bind(new InetSocketAddress(listen.getHostString(), listen.getPort())).sync().channel();
      info.set(listener.apply((InetSocketAddress) ch.localAddress()));
      ch.config().setAutoRead(true);
      return new KafkaServer(group, ch);
    } catch (Exception e) { // bind failures arrive as checked exceptions Netty does not declare
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      String message = "cannot listen for Kafka clients on " + listen.getHostString() + ":" + listen.getPort()
          + " (kafka.listen): " + e.getMessage();
      if (e instanceof java.net.BindException) {
        throw new java.net.BindException(message);
      }
      throw new IOException(message, e);
    }
  }

  /** The bound address (the real port when kafka.listen asked for port 0). */
  public InetSocketAddress address() {
    return (InetSocketAddress) channel.localAddress();
  }

  /** Stops accepting and closes every connection. */
  @Override
  public void close() {
    channel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
  }
}
