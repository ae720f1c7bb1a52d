package io.brook.broker.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A TCP proxy in front of the Kafka listener that forwards every frame, except that it closes the
 * connection instead of relaying a Produce answer when {@code drop} says so (asked once per Produce
 * answer): the batch is written, the client never learns it, and retries it.
 */
final class ProduceAnswerProxy implements AutoCloseable {
  private static final short PRODUCE = 0;
  /** Produce answers dropped so far. */
  final AtomicInteger dropped = new AtomicInteger();
  private final BooleanSupplier drop;
  private final ServerSocket server;
  private final int upstream;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  ProduceAnswerProxy(int upstream, BooleanSupplier drop) throws IOException {
    this.upstream = upstream;
    this.drop = drop;
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::accept, "proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  int port() {
    return server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket broker = new Socket(InetAddress.getLoopbackAddress(), upstream);
        sockets.add(client);
        sockets.add(broker);
        BlockingQueue<Short> keys = new ArrayBlockingQueue<>(10_000);
        pump(client, broker, keys, true);
        pump(broker, client, keys, false);
      } catch (IOException e) {
        return;
      }
    }
  }

  /** Copies frames from one socket to the other; requests note their API key, answers take theirs. */
  private void pump(Socket from, Socket to, BlockingQueue<Short> keys, boolean requests) {
    Thread t = new Thread(() -> {
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        while (true) {
          byte[] size = in.readNBytes(4);
          if (size.length < 4) {
            break;
          }
          byte[] frame = in.readNBytes(ByteBuffer.wrap(size).getInt());
          if (requests) {
            keys.put(ByteBuffer.wrap(frame).getShort(0));
          } else if (keys.take() == PRODUCE && drop.getAsBoolean()) {
            dropped.incrementAndGet();
            from.close();
            to.close();
            break;
          }
          out.write(size);
          out.write(frame);
          out.flush();
        }
      } catch (IOException | InterruptedException e) {
        // a side closed: the other pump ends too
      } finally {
        try {
          from.close();
          to.close();
        } catch (IOException ignored) {
          // closed already
        }
      }
    }, "proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
  }
}
