package io.brook.broker.cli;

import io.brook.broker.cli.GroupConsumer.CommitFailedException;
import io.brook.broker.cli.GroupConsumer.ConsumedRecord;
import io.brook.broker.cli.GroupConsumer.ConsumerException;
import io.brook.broker.cli.GroupConsumer.TopicPartition;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.grpc.ManagedChannel;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code brook consume TOPIC --group G}: an offset-mode member ({@link GroupConsumer}). Prints each
 * batch, then commits it; commits on a rebalance and at the end (Ctrl-C included), then leaves.
 * Without --follow it stops once its partitions are read to the end; with --max it commits exactly
 * the offset after the last record printed.
 */
final class GroupConsume implements GroupConsumer.RebalanceListener {
  private static final Duration POLL = Duration.ofMillis(500);

  private final ConsumeCommand c;
  private OutputStream out;
  private GroupConsumer consumer;

  GroupConsume(ConsumeCommand command) {
    this.c = command;
  }

  int run() throws IOException {
    RecordFormat format = new RecordFormat(c.format);
    GroupConsumer.Settings settings = new GroupConsumer.Settings(c.group, List.of(c.topic))
        .clientId(c.clientId == null ? "brook-cli" : c.clientId)
        .autoOffsetReset("earliest".equals(c.from) ? GroupConsumer.OffsetReset.EARLIEST
            : GroupConsumer.OffsetReset.LATEST);
    if (c.sessionTimeoutMs != null) {
      settings.sessionTimeoutMs(c.sessionTimeoutMs);
    }
    if (c.max != null) {
      settings.maxPollRecords((int) Math.max(1, Math.min(500, c.max)));
    }
    ManagedChannel channel = BrokerOption.channel();
    out = new BufferedOutputStream(System.out, 1 << 16);
    try (StopSignal stop = new StopSignal(() -> {}, 15)) {
      // A group would simply assign nothing of an unknown topic: say so instead.
      AdminServiceGrpc.newBlockingStub(channel).describeTopic(DescribeTopicRequest.newBuilder().setName(c.topic).build());
      consumer = new GroupConsumer(channel, settings, this);
      boolean closed = false;
      try {
        consume(format, stop);
        out.flush();
        closed = true;
        consumer.close(); // commits the positions, leaves the group
      } catch (CommitFailedException e) {
        throw new CliException("the records printed last could not be committed: " + e.getMessage(),
            BrookCli.EXIT_REFUSED);
      } catch (ConsumerException e) {
        throw new CliException(e.getMessage(), BrookCli.EXIT_REFUSED);
      } finally {
        if (!closed) {
          try {
            consumer.close();
          } catch (RuntimeException suppressed) {
            // the first failure is the one to report
          }
        }
      }
      return 0;
    } finally {
      out.flush();
      BrokerOption.close(channel);
    }
  }

  private void consume(RecordFormat format, StopSignal stop) throws IOException {
    long printed = 0;
    boolean done = c.max != null && c.max == 0;
    while (!done && !stop.stopping()) {
      List<ConsumedRecord> batch = consumer.poll(POLL);
      for (int i = 0; i < batch.size(); i++) {
        ConsumedRecord r = batch.get(i);
        format.write(r.partition(), r.record(), out);
        if (c.max != null && ++printed >= c.max) {
          rewindPast(batch, i);
          done = true;
          break;
        }
      }
      out.flush();
      if (!batch.isEmpty()) {
        try {
          consumer.commit();
        } catch (CommitFailedException e) {
          // The next poll rejoins; another member may print these records again (at least once).
          System.err.println("brook: " + e.getMessage());
        }
      }
      if (!c.follow && consumer.caughtUp()) {
        done = true;
      }
    }
  }

  /** After --max: each partition's position goes back to its first record of the batch not printed. */
  private void rewindPast(List<ConsumedRecord> batch, int lastPrinted) {
    Map<TopicPartition, Long> firstUnprinted = new LinkedHashMap<>();
    for (int j = lastPrinted + 1; j < batch.size(); j++) {
      firstUnprinted.putIfAbsent(batch.get(j).topicPartition(), batch.get(j).offset());
    }
    firstUnprinted.forEach(consumer::seek);
  }

  @Override
  public void onPartitionsRevoked(List<TopicPartition> partitions) {
    try {
      out.flush();
      consumer.commit();
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (CommitFailedException e) {
      System.err.println("brook: " + e.getMessage());
    }
  }

  @Override
  public void onPartitionsLost(List<TopicPartition> partitions) {
    System.err.println("brook: lost partitions " + partitions + " of group " + c.group
        + " (removed from the group); records printed since the last commit may be printed again by another member");
  }
}
