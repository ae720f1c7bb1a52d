package io.brook.broker.it.kafka;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * A raw Kafka protocol connection for tests: frames written and read by hand over a plain socket,
 * encoded with kafka-clients' generated classes, so a test controls exactly what the broker gets
 * (pipelines, garbage, half frames, versions no client sends).
 */
public final class KafkaWire implements AutoCloseable {
  final Socket socket;
  private final OutputStream out;
  private final DataInputStream in;

  public KafkaWire(int port) throws IOException {
    this(connect(port));
  }

  /** Over a socket already connected (a TLS one). */
  public KafkaWire(Socket socket) throws IOException {
    this.socket = socket;
    socket.setSoTimeout(30_000);
    out = socket.getOutputStream();
    in = new DataInputStream(new java.io.BufferedInputStream(socket.getInputStream(), 1 << 16));
  }

  private static Socket connect(int port) throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
    return s;
  }

  /** The frame of a request: length, header (at the version the API version implies), body. */
  public static byte[] frame(ApiKeys key, short version, int correlationId, ApiMessage body) {
    return frame(key.id, version, key.requestHeaderVersion(version), correlationId, body, version);
  }

  static byte[] frame(short keyId, short version, short headerVersion, int correlationId, ApiMessage body,
      short bodyVersion) {
    RequestHeaderData header = new RequestHeaderData().setRequestApiKey(keyId).setRequestApiVersion(version)
        .setCorrelationId(correlationId).setClientId("kafka-wire-test");
    ObjectSerializationCache cache = new ObjectSerializationCache();
    int size = header.size(cache, headerVersion) + (body == null ? 0 : body.size(cache, bodyVersion));
    ByteBuffer buf = ByteBuffer.allocate(4 + size);
    buf.putInt(size);
    ByteBufferAccessor w = new ByteBufferAccessor(buf);
    header.write(w, cache, headerVersion);
    if (body != null) {
      body.write(w, cache, bodyVersion);
    }
    return buf.array();
  }

  public static byte[] apiVersions(short version, int correlationId) {
    return frame(ApiKeys.API_VERSIONS, version, correlationId, new ApiVersionsRequestData()
        .setClientSoftwareName("kafka-wire-test").setClientSoftwareVersion("1"));
  }

  public void write(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  /** One response frame's bytes after the length. */
  public ByteBuffer readFrame() throws IOException {
    int size = in.readInt();
    byte[] b = new byte[size];
    in.readFully(b);
    return ByteBuffer.wrap(b);
  }

  /** An ApiVersions answer: its header is always v0 (KIP-511). */
  public Answer<ApiVersionsResponseData> readApiVersions(short version) throws IOException {
    ByteBufferAccessor r = new ByteBufferAccessor(readFrame());
    ResponseHeaderData header = new ResponseHeaderData(r, (short) 0);
    ApiVersionsResponseData data = new ApiVersionsResponseData(r, version);
    return new Answer<>(header.correlationId(), data, r.remaining());
  }

  public record Answer<T>(int correlationId, T data, int bytesLeft) {}

  /** Whether the broker closed the connection: the next read ends (EOF or reset) instead of timing out. */
  public boolean closedByBroker() throws IOException {
    socket.setSoTimeout(30_000);
    try {
      while (in.read() >= 0) {
        // drain whatever was answered before the close
      }
      return true;
    } catch (EOFException | java.net.SocketException e) {
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
