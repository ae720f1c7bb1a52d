package io.brook.broker.server;

import io.grpc.Attributes;
import io.grpc.ServerTransportFilter;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts open gRPC client connections (HTTP/2 transports that became ready and have not ended). */
final class ConnectionCounter extends ServerTransportFilter {
  private static final Attributes.Key<Boolean> COUNTED = Attributes.Key.create("brook.connection.counted");
  private final AtomicInteger open = new AtomicInteger();

  @Override
  public Attributes transportReady(Attributes attributes) {
    open.incrementAndGet();
    return attributes.toBuilder().set(COUNTED, true).build();
  }

  @Override
  public void transportTerminated(Attributes attributes) {
    // A transport that failed before it was ready was never counted.
    if (attributes != null && Boolean.TRUE.equals(attributes.get(COUNTED))) {
      open.decrementAndGet();
    }
  }

  int open() {
    return open.get();
  }
}
