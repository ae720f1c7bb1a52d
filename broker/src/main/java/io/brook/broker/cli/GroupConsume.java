package io.brook.broker.cli;

import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRebalanceListener;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.OffsetResetStrategy;
import io.brook.client.errors.BrookException;
import io.brook.client.errors.CommitFailedException;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * {@code brook consume TOPIC --group G}: an offset-mode member (the Java client's {@link
 * BrookConsumer}). Prints each batch, then commits it; commits on a rebalance and at the end
 * (Ctrl-C and SIGTERM included), then leaves. Without --follow it stops once its partitions are read to the
 * end; with --max it commits exactly the offset after the last record printed.
 */
final class GroupConsume implements ConsumerRebalanceListener {
  private static final Duration POLL = Duration.ofMillis(500);
  /** The CLI's member is short-lived and interactive: removed sooner than the client's 45 s default. */
  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

  private final ConsumeCommand c;
  private OutputStream out;
  private BrookConsumer<byte[], byte[]> consumer;
  /** The final commit is done: the revoke at close has nothing left to commit. */
  private boolean committedForClose;

  GroupConsume(ConsumeCommand command) {
    this.c = command;
  }

  int run() throws IOException {
    RecordFormat format = new RecordFormat(c.format);
    ManagedChannel channel = BrokerOption.channel();
    ConsumerConfig.Builder config = ConsumerConfig.builder().channel(channel).groupId(c.group)
        .clientId(c.clientId == null ? "brook-cli" : c.clientId)
        .autoOffsetReset("earliest".equals(c.from) ? OffsetResetStrategy.EARLIEST : OffsetResetStrategy.LATEST)
        .sessionTimeout(c.sessionTimeoutMs == null ? SESSION_TIMEOUT : Duration.ofMillis(c.sessionTimeoutMs))
        .enableAutoCommit(false); // committed here, after each printed batch
    if (c.max != null) {
      config.maxPollRecords((int) Math.max(1, Math.min(500, c.max)));
    }
    out = new BufferedOutputStream(System.out, 1 << 16);
    // Ctrl-C or SIGTERM ends the poll loop; the last commit and the leave below still run, and the
    // signals stay handled until the channel is closed, so a clean stop exits 0.
    try (StopSignal stop = new StopSignal(() -> {}, 15)) {
      try {
        // A group would simply assign nothing of an unknown topic: say so instead.
        AdminServiceGrpc.newBlockingStub(channel)
            .describeTopic(DescribeTopicRequest.newBuilder().setName(c.topic).build());
        consumer = new BrookConsumer<>(config.build(), Serdes.bytesDeserializer(), Serdes.bytesDeserializer());
        consumer.subscribe(List.of(c.topic), this);
        try {
          consume(format, stop);
          out.flush();
          try {
            consumer.commitSync();
            committedForClose = true;
          } catch (CommitFailedException e) {
            throw new CliException("the records printed last could not be committed: " + e.getMessage(),
                BrookCli.EXIT_REFUSED);
          }
        } catch (BrookException e) {
          throw cliError(e);
        } finally {
          try {
            consumer.close(); // leaves the group
          } catch (RuntimeException suppressed) {
            // the first failure is the one to report
          }
        }
        return 0;
      } finally {
        out.flush();
        BrokerOption.close(channel);
      }
    }
  }

  /**
   * A failed call with a gRPC status goes to ClientErrors as it is (it names the broker's reason,
   * or says the broker is unreachable); the client's own refusals become one line.
   */
  static RuntimeException cliError(BrookException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof StatusRuntimeException) {
        return e;
      }
    }
    return new CliException(e.getMessage(), BrookCli.EXIT_REFUSED);
  }

  private void consume(RecordFormat format, StopSignal stop) throws IOException {
    long printed = 0;
    boolean done = c.max != null && c.max == 0;
    while (!done && !stop.stopping()) {
      List<ConsumerRecord<byte[], byte[]>> batch = consumer.poll(POLL).asList();
      for (int i = 0; i < batch.size(); i++) {
        format.write(batch.get(i), out);
        if (c.max != null && ++printed >= c.max) {
          rewindPast(batch, i);
          done = true;
          break;
        }
      }
      out.flush();
      if (!batch.isEmpty()) {
        try {
          consumer.commitSync();
        } catch (CommitFailedException e) {
          // The next poll rejoins; another member may print these records again (at least once).
          System.err.println("brook: " + e.getMessage());
        }
      }
      if (!c.follow && caughtUp()) {
        done = true;
      }
    }
  }

  /**
   * The member holds an assignment and has read every assigned partition up to the end offset its
   * last fetch saw (an empty assignment is caught up).
   */
  private boolean caughtUp() {
    if (!consumer.groupMetadata().isMember()) {
      return false;
    }
    for (TopicPartition tp : consumer.assignment()) {
      OptionalLong lag = consumer.currentLag(tp);
      if (lag.isEmpty() || lag.getAsLong() > 0) {
        return false;
      }
    }
    return true;
  }

  /** After --max: each partition's position goes back to its first record of the batch not printed. */
  private void rewindPast(List<ConsumerRecord<byte[], byte[]>> batch, int lastPrinted) {
    Map<TopicPartition, Long> firstUnprinted = new LinkedHashMap<>();
    for (int j = lastPrinted + 1; j < batch.size(); j++) {
      firstUnprinted.putIfAbsent(batch.get(j).topicPartition(), batch.get(j).offset());
    }
    firstUnprinted.forEach(consumer::seek);
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    if (committedForClose) {
      return;
    }
    try {
      out.flush();
      consumer.commitSync();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (CommitFailedException e) {
      System.err.println("brook: " + e.getMessage());
    }
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> partitions) {
    System.err.println("brook: lost partitions " + partitions + " of group " + c.group
        + " (removed from the group); records printed since the last commit may be printed again by another member");
  }
}
