package io.brook.client.micrometer;

import io.brook.client.TopicPartition;
import io.brook.client.ack.AckConsumer;
import io.brook.client.ack.AckConsumerStats;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerMetrics;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.ProducerMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;

/**
 * Binds a Brook client's counters to a Micrometer registry: functional meters that read the
 * client's own counters at each scrape, so nothing is recorded twice. Micrometer is an optional
 * dependency of the client: only this package needs it on the class path.
 *
 * <pre>{@code
 * BrookClientMetrics.bind(producer, registry, Tag.of("client.id", "orders"));
 * }</pre>
 *
 * <p>{@link #close()} removes the meters again (for a client closed before the registry is).
 */
public final class BrookClientMetrics implements MeterBinder, AutoCloseable {
  private final Iterable<Tag> tags;
  private final Consumer<BrookClientMetrics> binder;
  private final List<Runnable> onClose = new ArrayList<>();
  private final Set<String> reasonsBound = new HashSet<>();
  private MeterRegistry registry;

  private BrookClientMetrics(Iterable<Tag> tags, Consumer<BrookClientMetrics> binder) {
    this.tags = Tags.of(tags);
    this.binder = binder;
  }

  /** A binder of the producer's meters ({@code brook.producer.*}), for {@link #bindTo}. */
  public static BrookClientMetrics of(BrookProducer<?, ?> producer, Tag... tags) {
    ProducerMetrics m = Objects.requireNonNull(producer, "producer").metrics();
    return new BrookClientMetrics(List.of(tags), b -> b.bindProducer(m));
  }

  /** A binder of the consumer's meters ({@code brook.consumer.*}), for {@link #bindTo}. */
  public static BrookClientMetrics of(BrookConsumer<?, ?> consumer, Tag... tags) {
    ConsumerMetrics m = Objects.requireNonNull(consumer, "consumer").metrics();
    return new BrookClientMetrics(List.of(tags), b -> b.bindConsumer(m));
  }

  /** A binder of the ack consumer's meters ({@code brook.ack.consumer.*}), for {@link #bindTo}. */
  public static BrookClientMetrics of(AckConsumer<?, ?> consumer, Tag... tags) {
    Objects.requireNonNull(consumer, "consumer");
    return new BrookClientMetrics(List.of(tags), b -> b.bindAckConsumer(consumer));
  }

  public static BrookClientMetrics bind(BrookProducer<?, ?> producer, MeterRegistry registry, Tag... tags) {
    return bound(of(producer, tags), registry);
  }

  public static BrookClientMetrics bind(BrookConsumer<?, ?> consumer, MeterRegistry registry, Tag... tags) {
    return bound(of(consumer, tags), registry);
  }

  public static BrookClientMetrics bind(AckConsumer<?, ?> consumer, MeterRegistry registry, Tag... tags) {
    return bound(of(consumer, tags), registry);
  }

  private static BrookClientMetrics bound(BrookClientMetrics b, MeterRegistry registry) {
    b.bindTo(registry);
    return b;
  }

  /** Registers the meters; one binder binds to one registry. */
  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    if (this.registry != null) {
      throw new IllegalStateException("already bound to a registry: make one binder per registry");
    }
    this.registry = Objects.requireNonNull(registry, "registry");
    binder.accept(this);
  }

  /** Removes the meters from the registry and stops following the client; it may then bind again. */
  @Override
  public synchronized void close() {
    onClose.forEach(Runnable::run);
    onClose.clear();
    reasonsBound.clear();
    registry = null;
  }

  private void bindProducer(ProducerMetrics m) {
    counter("brook.producer.sent.records", "records the broker acknowledged as written", m,
        ProducerMetrics::recordsSent, null);
    counter("brook.producer.sent.bytes", "bytes of the records acknowledged, as sent", m,
        ProducerMetrics::bytesSent, "bytes");
    counter("brook.producer.sent.batches", "batches acknowledged (sent.bytes / sent.batches: the average batch)",
        m, ProducerMetrics::batchesSent, null);
    counter("brook.producer.retries", "batches sent again after a retriable failure", m,
        ProducerMetrics::retries, null);
    gauge("brook.producer.buffer.used", "bytes of bufferMemory held by records not yet answered", m,
        ProducerMetrics::bufferUsedBytes, "bytes");
    gauge("brook.producer.buffer.total", "bufferMemory", m, ProducerMetrics::bufferTotalBytes, "bytes");
    gauge("brook.producer.requests.in.flight", "produce requests sent and not yet answered", m,
        ProducerMetrics::requestsInFlight, null);
    keep(FunctionTimer.builder("brook.producer.request.latency", m, ProducerMetrics::requests,
            ProducerMetrics::requestLatencyTotalNanos, TimeUnit.NANOSECONDS)
        .description("time from sending a produce request to its answer").tags(tags).register(registry));
    // One counter per reason, registered as reasons appear (registering twice returns the same meter).
    Runnable errors = () -> {
      synchronized (this) {
        if (registry == null) {
          return;
        }
        for (String reason : m.errors().keySet()) {
          if (!reasonsBound.add(reason)) {
            continue;
          }
          keep(FunctionCounter.builder("brook.producer.errors", m, x -> x.errors(reason))
              .description("records that failed, by the error's reason").tags(tags).tag("reason", reason)
              .register(registry));
        }
      }
    };
    follow(errors, m::addListener, m::removeListener);
  }

  private void bindConsumer(ConsumerMetrics m) {
    counter("brook.consumer.fetched.records", "records the fetch answers held from the positions on", m,
        ConsumerMetrics::recordsFetched, null);
    counter("brook.consumer.fetched.bytes", "encoded bytes of the records fetched", m,
        ConsumerMetrics::bytesFetched, "bytes");
    counter("brook.consumer.fetches", "fetch answers received", m, ConsumerMetrics::fetches, null);
    counter("brook.consumer.rebalances", "joins of the group completed", m, ConsumerMetrics::rebalances, null);
    counter("brook.consumer.commit.failures", "commits refused or failed", m, ConsumerMetrics::commitFailures, null);
    keep(FunctionTimer.builder("brook.consumer.commit.latency", m, ConsumerMetrics::commits,
            ConsumerMetrics::commitLatencyTotalNanos, TimeUnit.NANOSECONDS)
        .description("time from sending a commit to its answer").tags(tags).register(registry));
    gauge("brook.consumer.lag.max", "the largest lag of the assigned partitions", m, ConsumerMetrics::maxLag, null);
    MultiGauge lag = MultiGauge.builder("brook.consumer.lag").tags(tags)
        .description("end offset minus position of an assigned partition, as of the last poll").register(registry);
    Runnable rows = () -> {
      synchronized (this) {
        if (registry == null) {
          return;
        }
        List<MultiGauge.Row<?>> now = new ArrayList<>();
        for (TopicPartition tp : m.lag().keySet()) {
          now.add(MultiGauge.Row.of(Tags.of("topic", tp.topic(), "partition", Integer.toString(tp.partition())), m,
              x -> lagOf(x, tp)));
        }
        lag.register(now, true);
      }
    };
    onClose.add(() -> lag.register(List.of(), true));
    follow(rows, m::addListener, m::removeListener);
  }

  /** NaN (no sample) for a partition whose row the next refresh removes. */
  private static double lagOf(ConsumerMetrics m, TopicPartition tp) {
    long lag = m.lag(tp);
    return lag < 0 ? Double.NaN : lag;
  }

  private void bindAckConsumer(AckConsumer<?, ?> c) {
    counter("brook.ack.consumer.received.records", "deliveries received", c, s(AckConsumerStats::receivedRecords),
        null);
    counter("brook.ack.consumer.redelivered.records", "deliveries with an attempt count above 1", c,
        s(AckConsumerStats::redeliveredRecords), null);
    counter("brook.ack.consumer.settles.queued", "acks, nacks, rejects and lease extensions asked for", c,
        s(AckConsumerStats::settlesQueued), null);
    counter("brook.ack.consumer.settle.messages", "stream messages that carried settles", c,
        s(AckConsumerStats::settleMessages), null);
    counter("brook.ack.consumer.settle.calls", "unary Settle calls (flush, close)", c,
        s(AckConsumerStats::settleCalls), null);
    counter("brook.ack.consumer.settle.failures", "settle failures the broker reported", c,
        s(AckConsumerStats::settleFailures), null);
    counter("brook.ack.consumer.reconnects", "streams opened again after one broke", c,
        s(AckConsumerStats::reconnects), null);
  }

  private static ToDoubleFunction<AckConsumer<?, ?>> s(ToDoubleFunction<AckConsumerStats> f) {
    return c -> f.applyAsDouble(c.stats());
  }

  /** Runs {@code refresh} now and whenever the client reports a new series, until close. */
  private void follow(Runnable refresh, Consumer<Runnable> add, Consumer<Runnable> remove) {
    add.accept(refresh);
    onClose.add(() -> remove.accept(refresh));
    refresh.run();
  }

  private <T> void counter(String name, String description, T obj, ToDoubleFunction<T> f, String unit) {
    keep(FunctionCounter.builder(name, obj, f).description(description).baseUnit(unit).tags(tags).register(registry));
  }

  private <T> void gauge(String name, String description, T obj, ToDoubleFunction<T> f, String unit) {
    keep(Gauge.builder(name, obj, f).description(description).baseUnit(unit).tags(tags).register(registry));
  }

  private void keep(Meter meter) {
    MeterRegistry r = registry;
    onClose.add(() -> r.remove(meter));
  }
}
