package io.brook.broker.cli;

import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.OffsetResetStrategy;
import io.brook.client.errors.BrookException;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code brook consume TOPIC} without --group: reads the chosen partitions by offset with the Java
 * client's {@link BrookConsumer}, assigned and without a group (nothing is committed). Without
 * --follow it stops at the end offsets seen at start; with --follow it waits for new records. A stop
 * signal ends either after the batch being printed.
 */
final class PartitionConsume {
  private static final Duration POLL = Duration.ofMillis(500);
  private static final int MAX_POLL_RECORDS = 10_000;

  private final ConsumeCommand c;
  private final List<TopicPartition> partitions;
  private final RecordFormat format;
  private final OutputStream out;
  private final StopSignal stop;
  private long printed;

  PartitionConsume(ConsumeCommand command, List<Integer> partitions, RecordFormat format, OutputStream out,
      StopSignal stop) {
    this.c = command;
    this.partitions = partitions.stream().map(p -> new TopicPartition(command.topic, p)).toList();
    this.format = format;
    this.out = out;
    this.stop = stop;
  }

  /** {@code start}: null, or the time of --from-time. */
  void run(ManagedChannel channel, Instant startTime) throws IOException {
    int maxPollRecords = c.max == null ? MAX_POLL_RECORDS : (int) Math.min(MAX_POLL_RECORDS, c.max);
    // NONE: a position that retention passed while reading is an error to report, not a silent jump.
    ConsumerConfig config = ConsumerConfig.builder().channel(channel).maxPollRecords(maxPollRecords)
        .autoOffsetReset(OffsetResetStrategy.NONE).build();
    try (BrookConsumer<byte[], byte[]> consumer = new BrookConsumer<>(config, Serdes.bytesDeserializer(),
        Serdes.bytesDeserializer())) {
      consumer.assign(partitions);
      seekToStart(consumer, startTime);
      if (c.follow) {
        follow(consumer);
      } else {
        readToEnd(consumer);
      }
    } catch (BrookException e) {
      throw GroupConsume.cliError(e);
    }
  }

  private void seekToStart(BrookConsumer<byte[], byte[]> consumer, Instant startTime) {
    Map<TopicPartition, Long> starts;
    if (startTime != null) {
      Map<TopicPartition, Long> times = new HashMap<>();
      partitions.forEach(tp -> times.put(tp, startTime.toEpochMilli()));
      starts = consumer.offsetsForTimes(times);
    } else {
      String from = c.from == null ? (c.follow ? "latest" : "earliest") : c.from;
      switch (from) {
        case "earliest" -> starts = consumer.beginningOffsets(partitions);
        case "latest" -> starts = consumer.endOffsets(partitions);
        default -> starts = exactOffset(consumer, Long.parseLong(from)); // checked by ConsumeCommand
      }
    }
    starts.forEach(consumer::seek);
  }

  /** --from OFFSET: the same offset in every partition, which must lie in its range. */
  private Map<TopicPartition, Long> exactOffset(BrookConsumer<byte[], byte[]> consumer, long offset) {
    Map<TopicPartition, Long> first = consumer.beginningOffsets(partitions);
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
    Map<TopicPartition, Long> starts = new HashMap<>();
    for (TopicPartition tp : partitions) {
      if (offset < first.get(tp) || offset > end.get(tp)) {
        throw new CliException("offset " + offset + " of " + tp + " is out of range [" + first.get(tp) + ", "
            + end.get(tp) + "] (OFFSET_OUT_OF_RANGE)", BrookCli.EXIT_REFUSED);
      }
      starts.put(tp, offset);
    }
    return starts;
  }

  /** Every partition from its start up to the end offset it had when we began. */
  private void readToEnd(BrookConsumer<byte[], byte[]> consumer) throws IOException {
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
    List<TopicPartition> pending = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      if (consumer.position(tp) < end.get(tp)) {
        pending.add(tp);
      }
    }
    consumer.assign(pending); // positions of the partitions kept stay
    while (!pending.isEmpty() && !stop.stopping()) {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
        if (r.offset() >= end.get(r.topicPartition())) {
          continue;
        }
        format.write(r, out);
        if (c.max != null && ++printed >= c.max) {
          return;
        }
      }
      if (pending.removeIf(tp -> consumer.position(tp) >= end.get(tp))) {
        consumer.assign(pending);
      }
    }
  }

  /** New records as they come, until --max, Ctrl-C or SIGTERM. */
  private void follow(BrookConsumer<byte[], byte[]> consumer) throws IOException {
    while (!stop.stopping()) {
      for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
        format.write(r, out);
        if (c.max != null && ++printed >= c.max) {
          return;
        }
      }
      out.flush();
    }
  }
}
