package io.brook.broker.it;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A client that speaks just enough HTTP/2 to open gRPC streams and ignore the server's
 * SETTINGS_MAX_CONCURRENT_STREAMS, as a hostile client would (grpc-java's own client queues calls
 * beyond the limit instead of opening them). It opens streams with HEADERS only (the call starts
 * and waits for its request) and counts the RST_STREAM frames the server answers with.
 */
final class RawHttp2Client implements AutoCloseable {
  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final int HEADERS = 1, RST_STREAM = 3, SETTINGS = 4, PING = 6, GOAWAY = 7;
  private static final int FLAG_ACK = 1, FLAG_END_HEADERS = 4;
  static final int REFUSED_STREAM = 7;

  /** What the server sent back. */
  record Answers(int refused, int otherResets, boolean goAway, int maxConcurrentStreams) {}

  private final Socket socket;
  private final OutputStream out;
  private final DataInputStream in;
  private int maxConcurrentStreams = -1;

  RawHttp2Client(int port) throws IOException {
    socket = new Socket("127.0.0.1", port);
    socket.setSoTimeout(1000);
    out = socket.getOutputStream();
    in = new DataInputStream(socket.getInputStream());
    out.write(PREFACE);
    frame(SETTINGS, 0, 0, new byte[0]);
    // The server's limit applies once its SETTINGS are acknowledged: read them and ack.
    while (true) {
      int[] f = readFrame();
      if (f != null && f[0] == SETTINGS && (f[1] & FLAG_ACK) == 0) {
        frame(SETTINGS, FLAG_ACK, 0, new byte[0]);
        break;
      }
    }
    out.flush();
  }

  /** Opens {@code count} streams on {@code path} (streams 1, 3, 5...), never sending their requests. */
  void openStreams(String path, int count) throws IOException {
    byte[] block = headerBlock(path);
    for (int i = 0; i < count; i++) {
      frame(HEADERS, FLAG_END_HEADERS, 1 + 2 * i, block);
    }
    out.flush();
  }

  /** Reads for up to {@code ms}, or until {@code expectedRefusals} streams were refused. */
  Answers read(long ms, int expectedRefusals) throws IOException {
    int refused = 0;
    int others = 0;
    boolean goAway = false;
    long until = System.nanoTime() + ms * 1_000_000;
    while (System.nanoTime() < until && refused < expectedRefusals && !goAway) {
      int[] f = readFrame();
      if (f == null) {
        continue;
      }
      if (f[0] == RST_STREAM) {
        if (f[3] == REFUSED_STREAM) {
          refused++;
        } else {
          others++;
        }
      } else if (f[0] == GOAWAY) {
        goAway = true;
      }
    }
    return new Answers(refused, others, goAway, maxConcurrentStreams);
  }

  /** {type, flags, stream, error code of RST_STREAM}, or null on a read timeout; answers PINGs. */
  private int[] readFrame() throws IOException {
    byte[] head = new byte[9];
    try {
      in.readFully(head);
    } catch (SocketTimeoutException e) {
      return null;
    }
    int length = ((head[0] & 0xFF) << 16) | ((head[1] & 0xFF) << 8) | (head[2] & 0xFF);
    int type = head[3] & 0xFF;
    int flags = head[4] & 0xFF;
    int stream = ((head[5] & 0x7F) << 24) | ((head[6] & 0xFF) << 16) | ((head[7] & 0xFF) << 8) | (head[8] & 0xFF);
    socket.setSoTimeout(10_000); // the rest of a frame follows at once
    byte[] payload = new byte[length];
    in.readFully(payload);
    socket.setSoTimeout(1000);
    int code = 0;
    if (type == RST_STREAM && length == 4) {
      code = ((payload[0] & 0xFF) << 24) | ((payload[1] & 0xFF) << 16) | ((payload[2] & 0xFF) << 8)
          | (payload[3] & 0xFF);
    } else if (type == SETTINGS && (flags & FLAG_ACK) == 0) {
      for (int i = 0; i + 6 <= length; i += 6) {
        int id = ((payload[i] & 0xFF) << 8) | (payload[i + 1] & 0xFF);
        int value = ((payload[i + 2] & 0xFF) << 24) | ((payload[i + 3] & 0xFF) << 16)
            | ((payload[i + 4] & 0xFF) << 8) | (payload[i + 5] & 0xFF);
        if (id == 3) { // SETTINGS_MAX_CONCURRENT_STREAMS
          maxConcurrentStreams = value;
        }
      }
    } else if (type == PING && (flags & FLAG_ACK) == 0) {
      frame(PING, FLAG_ACK, 0, payload);
      out.flush();
    }
    return new int[] {type, flags, stream, code};
  }

  /** HPACK: every header as a literal without indexing, no Huffman coding. */
  private static byte[] headerBlock(String path) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    String[][] headers = {{":method", "POST"}, {":scheme", "http"}, {":path", path}, {":authority", "127.0.0.1"},
        {"content-type", "application/grpc"}, {"te", "trailers"}};
    for (String[] h : headers) {
      b.write(0);
      literal(b, h[0]);
      literal(b, h[1]);
    }
    return b.toByteArray();
  }

  private static void literal(ByteArrayOutputStream b, String s) {
    byte[] bytes = s.getBytes(StandardCharsets.US_ASCII);
    if (bytes.length >= 127) {
      throw new IllegalArgumentException("header too long for this client: " + s);
    }
    b.write(bytes.length);
    b.writeBytes(bytes);
  }

  private void frame(int type, int flags, int stream, byte[] payload) throws IOException {
    byte[] head = {(byte) (payload.length >>> 16), (byte) (payload.length >>> 8), (byte) payload.length,
        (byte) type, (byte) flags, (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8),
        (byte) stream};
    out.write(head);
    out.write(payload);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
