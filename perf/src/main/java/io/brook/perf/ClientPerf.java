package io.brook.perf;

import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.ProducerConfig;
import io.brook.client.producer.ProducerRecord;
import io.brook.client.producer.RecordMetadata;
import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.CreateTopicRequest;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Recorder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The Java client's throughput, measured like Kafka's {@code kafka-producer-perf-test}: one
 * producer sends N keyless records of S random bytes as fast as it can (or at a fixed rate), and
 * the time from each send to its answer goes into a histogram. Prints Kafka's summary line, so the
 * two read side by side, and one JSON line for scripts.
 *
 * <pre>java -cp perf/target/brook-perf.jar io.brook.perf.ClientPerf --broker 127.0.0.1:PORT --records 1000000 --record-size 100</pre>
 */
@Command(name = "client-perf", mixinStandardHelpOptions = true,
    description = "Produce through the Java client at the maximum (or a fixed) rate and report like Kafka's perf tool.")
public final class ClientPerf implements Callable<Integer> {
  @Option(names = "--broker", defaultValue = "127.0.0.1:7070") String broker;
  @Option(names = "--topic", defaultValue = "client-perf") String topic;
  @Option(names = "--partitions", defaultValue = "3") int partitions;
  @Option(names = "--records", defaultValue = "1000000") long records;
  @Option(names = "--record-size", defaultValue = "100") int recordSize;
  @Option(names = "--throughput", defaultValue = "-1", description = "Records/s to aim at; -1: as fast as possible.")
  long throughput;
  @Option(names = "--batch-size", defaultValue = "16384") int batchSize;
  @Option(names = "--linger-ms", defaultValue = "5") long lingerMs;
  @Option(names = "--buffer-memory", defaultValue = "33554432") long bufferMemory;
  @Option(names = "--warmup-records", defaultValue = "200000",
      description = "Sent first to another topic and not measured (the JIT warms up on both sides).")
  long warmupRecords;
  @Option(names = "--idempotence", defaultValue = "true", negatable = true) boolean idempotence;
  @Option(names = "--consume", description = "Then read the records back through BrookConsumer (assign, from the "
      + "start, max.poll.records 10000, fetch.max.bytes 4 MiB) and report its rate.")
  boolean consume;

  public static void main(String[] args) {
    System.exit(new CommandLine(new ClientPerf()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    createTopic(topic);
    if (warmupRecords > 0) {
      createTopic(topic + "-warmup");
      run(topic + "-warmup", warmupRecords, -1, false);
    }
    run(topic, records, throughput, true);
    if (consume) {
      consume(topic);
    }
    return 0;
  }

  private void consume(String target) {
    ConsumerConfig config = ConsumerConfig.builder().broker(broker).maxPollRecords(10_000).fetchMaxBytes(4 << 20)
        .build();
    long count = 0;
    long bytes = 0;
    long start = System.nanoTime();
    try (BrookConsumer<byte[], byte[]> consumer = new BrookConsumer<>(config, Serdes.bytesDeserializer(),
        Serdes.bytesDeserializer())) {
      List<TopicPartition> all = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        all.add(new TopicPartition(target, p));
      }
      consumer.assign(all);
      consumer.seekToBeginning(all);
      long lastProgress = System.nanoTime();
      while (count < records) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofSeconds(1))) {
          count++;
          bytes += r.value().length;
          lastProgress = System.nanoTime();
        }
        if (System.nanoTime() - lastProgress > TimeUnit.SECONDS.toNanos(30)) {
          throw new IllegalStateException("only " + count + " of " + records + " records came back in time");
        }
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf(Locale.ROOT, "%d records consumed, %.1f records/sec (%.2f MB/sec)%n", count, count / seconds,
        bytes / seconds / (1024 * 1024));
    System.out.printf(Locale.ROOT, "{\"consumed\":%d,\"seconds\":%.3f,\"records_per_s\":%.0f,\"mb_per_s\":%.2f}%n",
        count, seconds, count / seconds, bytes / seconds / (1024 * 1024));
  }

  private void run(String target, long count, long rate, boolean report) throws Exception {
    byte[] payload = new byte[recordSize];
    new Random(42).nextBytes(payload);
    Recorder latencies = new Recorder(TimeUnit.MINUTES.toMicros(5), 3);
    ProducerConfig config = ProducerConfig.builder().broker(broker).batchSize(batchSize)
        .linger(Duration.ofMillis(lingerMs))        .bufferMemory(bufferMemory).idempotence(idempotence).build();
    long start;
    long end;
    CompletableFuture<RecordMetadata> last = null;
    try (BrookProducer<byte[], byte[]> producer = new BrookProducer<>(config, Serdes.bytesSerializer(),
        Serdes.bytesSerializer())) {
      start = System.nanoTime();
      for (long i = 0; i < count; i++) {
        if (rate > 0) {
          long due = start + i * 1_000_000_000L / rate;
          while (System.nanoTime() < due) {
            Thread.onSpinWait();
          }
        }
        long sent = System.nanoTime();
        last = producer.send(new ProducerRecord<>(target, payload));
        last.thenRun(() -> latencies.recordValue((System.nanoTime() - sent) / 1000));
      }
      producer.flush();
      end = System.nanoTime();
    }
    if (last != null) {
      last.get(); // a failed record fails the run
    }
    if (!report) {
      return;
    }
    org.HdrHistogram.Histogram h = latencies.getIntervalHistogram();
    double seconds = (end - start) / 1e9;
    double perSecond = count / seconds;
    double mbPerSecond = count * (double) recordSize / seconds / (1024 * 1024);
    System.out.printf(Locale.ROOT, "%d records sent, %.1f records/sec (%.2f MB/sec), %.2f ms avg latency, "
            + "%.2f ms max latency, %.0f ms 50th, %.0f ms 95th, %.0f ms 99th, %.0f ms 99.9th.%n",
        count, perSecond, mbPerSecond, h.getMean() / 1000, h.getMaxValue() / 1000.0,
        h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(95) / 1000.0,
        h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0);
    System.out.printf(Locale.ROOT, "{\"records\":%d,\"record_size\":%d,\"batch_size\":%d,\"linger_ms\":%d,"
            + "\"partitions\":%d,\"seconds\":%.3f,\"records_per_s\":%.0f,\"mb_per_s\":%.2f,\"p50_ms\":%.2f,"
            + "\"p99_ms\":%.2f,\"max_ms\":%.2f}%n", count, recordSize, batchSize, lingerMs, partitions, seconds,
        perSecond, mbPerSecond, h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0,
        h.getMaxValue() / 1000.0);
  }

  private void createTopic(String name) throws InterruptedException {
    int colon = broker.lastIndexOf(':');
    ManagedChannel channel = NettyChannelBuilder.forAddress(broker.substring(0, colon),
        Integer.parseInt(broker.substring(colon + 1))).usePlaintext().build();
    try {
      AdminServiceGrpc.newBlockingStub(channel).createTopic(CreateTopicRequest.newBuilder().setName(name)
          .setPartitions(partitions).build());
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.ALREADY_EXISTS) {
        throw e;
      }
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
