package io.brook.broker.cli;

import com.google.protobuf.ByteString;
import io.brook.client.Header;
import io.brook.client.ack.AckConsumer;
import io.brook.client.ack.AckConsumerConfig;
import io.brook.client.ack.AckRecord;
import io.brook.client.ack.SettleFailure;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.NewGroup;
import io.brook.client.errors.GroupExistsException;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.Record;
import io.grpc.ManagedChannel;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code brook consume TOPIC --group G --ack}: one ack-mode member ({@link AckConsumer}). Each
 * record is printed, then acked, except every --nack-every'th delivered record, which is nacked so
 * that it comes again. Stops after --max records, after --idle-ms without a record (without
 * --follow), or on Ctrl-C or SIGTERM; closing the consumer then sends the last settles and waits
 * until the broker applied them before the process exits. Every settle the broker did not apply, or
 * that was not sent or not confirmed, is named on stderr and makes the exit code 1. A broker restart
 * in between is ridden out: the consumer opens its stream again by itself.
 */
final class AckConsume {
  private static final long DEFAULT_IDLE_MS = 2000;
  private static final long DEFAULT_MAX_OUTSTANDING = 1000;
  /** How long close waits for the broker: within StopSignal's grace, so that a stop still reports. */
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);
  private static final long STOP_GRACE_S = 15;

  private final ConsumeCommand c;
  private final AtomicLong failures = new AtomicLong();
  private volatile AckConsumer<byte[], byte[]> consumer;

  AckConsume(ConsumeCommand command) {
    this.c = command;
  }

  int run() throws Exception {
    RecordFormat format = new RecordFormat(c.format);
    ManagedChannel channel = BrokerOption.channel();
    OutputStream out = new BufferedOutputStream(System.out, 1 << 16);
    try (StopSignal stop = new StopSignal(this::wakeup, STOP_GRACE_S)) {
      try {
        try (BrookAdmin admin = BrookAdmin.builder().channel(channel).build()) {
          admin.describeTopic(c.topic); // an unknown topic is said plainly, before a group is made for it
          if (c.from != null) {
            createGroup(admin);
          }
        }
        AckConsumerConfig.Builder config = AckConsumerConfig.builder().channel(channel).group(c.group).topics(c.topic)
            .clientId(c.clientId == null || c.clientId.isEmpty() ? null : c.clientId) // "": the broker's id, as before
            .maxOutstandingRecords(maxOutstanding()).requestTimeout(CLOSE_TIMEOUT).settleFailureHandler(this::report);
        if (c.ackFlushMs != null) {
          config.ackFlushInterval(Duration.ofMillis(c.ackFlushMs));
        }
        consumer = AckConsumer.ofBytes(config.build());
        receive(format, out, stop);
      } finally {
        out.flush();
        if (consumer != null) {
          consumer.close(); // sends the last settles and waits until the broker applied them, or reports them
        }
        BrokerOption.close(channel);
      }
    }
    if (failures.get() > 0) {
      throw new CliException(failures.get() + (failures.get() == 1 ? " settlement was" : " settlements were")
          + " not applied, or not confirmed (see above); their records may be delivered again", BrookCli.EXIT_REFUSED);
    }
    return 0;
  }

  private void wakeup() {
    AckConsumer<byte[], byte[]> current = consumer;
    if (current != null) {
      current.wakeup();
    }
  }

  /** With --from: create the group in ack mode with that auto.offset.reset, unless it exists. */
  private void createGroup(BrookAdmin admin) {
    try {
      admin.createGroup(NewGroup.ackMode(c.group).withConfig("auto.offset.reset", c.from));
    } catch (GroupExistsException exists) {
      // its config stays as it is
    }
  }

  private long maxOutstanding() {
    if (c.maxOutstanding != null) {
      return c.maxOutstanding;
    }
    return c.max == null ? DEFAULT_MAX_OUTSTANDING : Math.max(1, Math.min(DEFAULT_MAX_OUTSTANDING, c.max));
  }

  /** Prints and settles until done. */
  private void receive(RecordFormat format, OutputStream out, StopSignal stop) throws IOException {
    long idleNanos = TimeUnit.MILLISECONDS.toNanos(c.idleMs == null ? DEFAULT_IDLE_MS : c.idleMs);
    long lastRecord = System.nanoTime();
    long printed = 0;
    long delivered = 0;
    while (!stop.stopping() && (c.max == null || printed < c.max)) {
      long waitNanos = c.follow ? TimeUnit.SECONDS.toNanos(1) : lastRecord + idleNanos - System.nanoTime();
      List<AckRecord<byte[], byte[]>> records = consumer.poll(Duration.ofNanos(Math.max(0, waitNanos)));
      if (records.isEmpty()) {
        if (!c.follow && System.nanoTime() - lastRecord >= idleNanos) {
          return; // idle
        }
        continue;
      }
      lastRecord = System.nanoTime();
      List<AckRecord<byte[], byte[]>> acks = new ArrayList<>();
      List<AckRecord<byte[], byte[]>> nacks = new ArrayList<>();
      for (AckRecord<byte[], byte[]> r : records) {
        if (c.max != null && printed >= c.max) {
          // Not printed: for another member. Without a client id the broker hands it back as the
          // stream ends, without counting the delivery (a nack would count it); with one it would
          // stay leased until its lease ran out.
          if (consumer.config().clientId() != null) {
            consumer.nack(r);
          }
          continue;
        }
        format.write(r.partition(), wire(r), r.deliveryAttempt(), out);
        printed++;
        delivered++;
        (c.nackEvery != null && delivered % c.nackEvery == 0 ? nacks : acks).add(r);
      }
      out.flush(); // printed first, then settled: at least once
      acks.forEach(consumer::ack);
      Duration delay = Duration.ofMillis(c.nackDelayMs == null ? 0 : c.nackDelayMs);
      nacks.forEach(r -> consumer.nack(r, delay));
    }
  }

  /** The record as RecordFormat prints it. */
  private static Record wire(AckRecord<byte[], byte[]> r) {
    Record.Builder b = Record.newBuilder().setValue(ByteString.copyFrom(r.value())).setOffset(r.offset())
        .setTimestampMs(r.timestampMs());
    if (r.key() != null) {
      b.setKey(ByteString.copyFrom(r.key()));
    }
    for (Header h : r.headers()) {
      b.addHeaders(io.brook.protocol.v1.Header.newBuilder().setKey(h.key()).setValue(ByteString.copyFrom(h.value())));
    }
    return b.build();
  }

  /** A settle the broker did not apply, or that was not sent or not confirmed (on a gRPC thread, or the closing one). */
  private void report(SettleFailure f) {
    System.err.println("brook: settling " + f.topicPartition().topic() + ":" + f.topicPartition().partition()
        + " offset" + (f.lastOffset() != f.firstOffset() ? "s " + f.firstOffset() + ".." + f.lastOffset()
        : " " + f.firstOffset()) + " failed: " + f.error().getMessage() + " (" + code(f.reason()) + ")");
    failures.incrementAndGet();
  }

  /** The broker's error code by its proto name; the client's own reasons (NOT_SENT, OUTCOME_UNKNOWN) as they are. */
  private static String code(String reason) {
    try {
      return ErrorCode.valueOf("ERROR_CODE_" + reason).name();
    } catch (IllegalArgumentException notABrokerCode) {
      return reason;
    }
  }
}
