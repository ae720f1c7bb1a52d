package io.brook.broker.kafka.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.kafka.KafkaApi;
import io.brook.broker.kafka.KafkaApis;
import io.brook.broker.kafka.KafkaListenerInfo;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.metrics.KafkaObserver;
import io.brook.broker.outbound.OutboundMemory;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The listener's ordering and back-pressure with a handler that completes when the test says, on
 * another thread: the real Netty server on a loopback port, a plain socket as the client. (The
 * broker's own APIs complete at once, so the broker ITs cannot hold answers back like this.)
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KafkaServerTest {
  /** Holds every request's future until the test completes it; counts what is in flight. */
  static final class HeldApi implements KafkaApi {
    static final String THROW_ERROR = "m0-error";
    final BlockingQueue<Held> held = new LinkedBlockingQueue<>();
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger mostInFlight = new AtomicInteger();

    record Held(String mechanism, CompletableFuture<ApiMessage> future) {}

    @Override
    public ApiKeys key() {
      return ApiKeys.SASL_HANDSHAKE;
    }

    @Override
    public short minVersion() {
      return 0;
    }

    @Override
    public short maxVersion() {
      return 1;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
      if (((SaslHandshakeRequestData) request.body()).mechanism().equals(THROW_ERROR)) {
        throw new StackOverflowError("a handler that fails with an Error, not an exception");
      }
      mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      CompletableFuture<ApiMessage> f = new CompletableFuture<>();
      held.add(new Held(((SaslHandshakeRequestData) request.body()).mechanism(), f));
      return f;
    }

    Held next() throws InterruptedException {
      Held h = held.poll(30, TimeUnit.SECONDS);
      assertThat(h).as("a request reached the handler").isNotNull();
      return h;
    }

    /** Completes on another thread, as a handler whose work runs elsewhere does. */
    void answer(Held h, boolean withResponse) {
      inFlight.decrementAndGet();
      CompletableFuture.runAsync(() -> h.future().complete(withResponse
          ? new SaslHandshakeResponseData().setMechanisms(List.of(h.mechanism())) : null));
    }
  }

  private final HeldApi api = new HeldApi();
  private final OutboundMemory outbound = new OutboundMemory(64 << 20, 32 << 20);
  private final ExecutorService workers = Executors.newFixedThreadPool(2);
  private KafkaServer server;
  private Socket socket;

  private void start(int maxInflight) throws IOException {
    server = KafkaServer.start(InetSocketAddress.createUnresolved("127.0.0.1", 0), null,
        new ConnectionLimits(1 << 20, maxInflight, 600_000), new KafkaApis(List.of(api)), bound -> new KafkaListenerInfo(0, "127.0.0.1", bound.getPort(), "c", false),
        KafkaObserver.NONE, outbound, workers);
    socket = new Socket("127.0.0.1", server.address().getPort());
    socket.setSoTimeout(30_000);
  }

  @AfterEach
  void stop() throws IOException {
    if (socket != null) {
      socket.close();
    }
    if (server != null) {
      server.close();
    }
    workers.shutdownNow();
  }

  private void send(int count) throws IOException {
    send(count, "");
  }

  /** {@code count} requests with mechanisms m0, m1, ..., the first one's with {@code suffix}. */
  private void send(int count, String suffix) throws IOException {
    ByteBuffer all = ByteBuffer.allocate(count * 64);
    for (int i = 0; i < count; i++) {
      RequestHeaderData header = new RequestHeaderData().setRequestApiKey(ApiKeys.SASL_HANDSHAKE.id)
          .setRequestApiVersion((short) 1).setCorrelationId(i).setClientId("t");
      SaslHandshakeRequestData body = new SaslHandshakeRequestData().setMechanism("m" + i + (i == 0 ? suffix : ""));
      ObjectSerializationCache cache = new ObjectSerializationCache();
      all.putInt(header.size(cache, (short) 1) + body.size(cache, (short) 1));
      header.write(new ByteBufferAccessor(all), cache, (short) 1);
      body.write(new ByteBufferAccessor(all), cache, (short) 1);
    }
    OutputStream out = socket.getOutputStream();
    out.write(all.array(), 0, all.position()); // one write: the listener reads them all at once
    out.flush();
  }

  /** The next answer: its correlation id and mechanism. */
  private String read() throws IOException {
    DataInputStream in = new DataInputStream(socket.getInputStream());
    byte[] frame = new byte[in.readInt()];
    in.readFully(frame);
    ByteBufferAccessor r = new ByteBufferAccessor(ByteBuffer.wrap(frame));
    int correlationId = r.readInt();
    return correlationId + ":" + new SaslHandshakeResponseData(r, (short) 1).mechanisms().get(0);
  }

  @Test
  void answersGoInRequestOrderWhateverOrderTheyCompleteIn() throws Exception {
    start(100);
    send(50);
    List<HeldApi.Held> held = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      held.add(api.next());
    }
    for (int i = 49; i >= 0; i--) { // the last request first
      api.answer(held.get(i), true);
    }
    for (int i = 0; i < 50; i++) {
      assertThat(read()).isEqualTo(i + ":m" + i);
    }
  }

  @Test
  void aNullAnswerSendsNothingAndTheOthersKeepTheirOrder() throws Exception {
    start(100);
    send(6);
    List<HeldApi.Held> held = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      held.add(api.next());
    }
    for (int i = 5; i >= 0; i--) {
      api.answer(held.get(i), i % 2 == 0); // 1, 3 and 5 answer nothing, as Produce with acks=0
    }
    assertThat(read()).isEqualTo("0:m0");
    assertThat(read()).isEqualTo("2:m2");
    assertThat(read()).isEqualTo("4:m4");
  }

  /**
   * A handler that throws an Error (a codec's native library missing, a stack overflow) fails its
   * request, which closes the connection as any failed handler does; it used to escape the worker's
   * turn and leave the connection waiting for an answer that never came.
   */
  @Test
  void aHandlerThatThrowsAnErrorClosesTheConnectionInsteadOfHangingIt() throws Exception {
    start(100);
    send(3, "-error");
    org.assertj.core.api.Assertions.assertThatThrownBy(this::read).isInstanceOf(java.io.EOFException.class);
  }

  @Test
  void readingPausesAtTheInFlightBoundAndResumesAsAnswersDrain() throws Exception {
    start(4);
    send(20);
    for (int i = 0; i < 20; i++) {
      HeldApi.Held h = api.next(); // the 5th arrives only once one of the first four is answered
      api.answer(h, true);
      assertThat(read()).isEqualTo(i + ":m" + i);
    }
    assertThat(api.mostInFlight.get()).as("requests in flight at once").isEqualTo(4);
  }
}
