package io.brook.broker.delivery;

import java.util.List;
import java.util.function.Consumer;

/** A member's stream for tests: every dispatch may send as much as flow control allows. */
public final class CollectingSink implements AckMember.Sink {
  private final Consumer<List<Delivery>> sink;

  public CollectingSink(Consumer<List<Delivery>> sink) {
    this.sink = sink;
  }

  @Override
  public long sendableBytes() {
    return Long.MAX_VALUE;
  }

  @Override
  public void deliver(List<Delivery> deliveries) {
    sink.accept(deliveries);
  }

  @Override
  public void unused() {}
}
