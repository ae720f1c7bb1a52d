package io.brook.broker.cli;

import io.brook.client.Durability;
import io.brook.client.Header;
import io.brook.client.Serdes;
import io.brook.client.errors.BrookException;
import io.brook.client.errors.InvalidRecordException;
import io.brook.client.errors.RecordTooLargeException;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.CompressionType;
import io.brook.client.producer.ProducerConfig;
import io.brook.client.producer.ProducerRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code brook produce TOPIC}: one record per line of stdin, sent through the Java client's
 * producer (Kafka's partitioning, batching by size and linger, idempotent retries), until the end of
 * the input or Ctrl-C / SIGTERM.
 */
@Command(name = "produce", mixinStandardHelpOptions = true,
    description = "Produce one record per line of standard input.")
final class ProduceCommand implements Callable<Integer> {
  @Mixin BrokerOption broker;
  @Parameters(index = "0", paramLabel = "TOPIC") String topic;
  @Option(names = {"-k", "--key-separator"}, paramLabel = "SEP",
      description = "Split each line at the first SEP into key and value (lines without it have no key).")
  String keySeparator;
  // A list, not a map: a name may repeat (-H trace=a -H trace=b), as record headers allow.
  @Option(names = {"-H", "--header"}, paramLabel = "NAME=VALUE",
      description = "A header on every record. Repeatable; a name may repeat, the order is kept.")
  List<String> headers = new ArrayList<>();
  @Option(names = {"-p", "--partition"}, description = "Write every record to this partition.")
  Integer partition;
  @Option(names = "--batch-size", paramLabel = "BYTES",
      description = "Bytes of records per partition batch (default ${DEFAULT-VALUE}); keyless lines move to the next "
          + "partition after each batch.", defaultValue = "65536")
  int batchSize;
  @Option(names = "--linger-ms", description = "How long a batch that is not full waits (default ${DEFAULT-VALUE}).",
      defaultValue = "5")
  long lingerMs;
  @Option(names = "--max-in-flight", description = "Batches per partition sent ahead of their answers "
      + "(default ${DEFAULT-VALUE}; at most 5 unless --no-idempotence).", defaultValue = "5")
  int maxInFlight;
  @Option(names = "--durability", description = "written (default) or synced (forced to disk before the answer).",
      defaultValue = "written")
  String durability;
  @Option(names = {"-z", "--compression"}, paramLabel = "CODEC", description = "Compress each batch: none (default), "
      + "gzip, snappy, lz4 or zstd (Kafka's codecs; kcat's -z).", defaultValue = "none")
  String compression;
  @Option(names = "--no-idempotence", description = "Send as a plain producer (by default the CLI is an idempotent "
      + "producer: the broker never writes a batch twice).")
  boolean noIdempotence;

  private final AtomicLong refused = new AtomicLong();
  private final AtomicReference<BrookException> firstRefusal = new AtomicReference<>();
  private final AtomicReference<BrookException> fatal = new AtomicReference<>();

  @Override
  public Integer call() throws Exception {
    Durability level = switch (durability.toLowerCase(Locale.ROOT)) {
      case "written" -> Durability.WRITTEN;
      case "synced" -> Durability.SYNCED;
      default -> throw new CliException("--durability must be written or synced", BrookCli.EXIT_USAGE);
    };
    List<Header> recordHeaders = new ArrayList<>();
    for (String header : headers) {
      int eq = header.indexOf('=');
      if (eq < 1) {
        throw new CliException("--header must be NAME=VALUE (got '" + header + "')", BrookCli.EXIT_USAGE);
      }
      recordHeaders.add(Header.of(header.substring(0, eq), header.substring(eq + 1)));
    }
    CompressionType codec;
    try {
      codec = CompressionType.of(compression);
    } catch (IllegalArgumentException e) {
      throw new CliException("--compression: " + e.getMessage(), BrookCli.EXIT_USAGE);
    }
    ProducerConfig config = BrokerOption.check(() -> ProducerConfig.builder().broker(BrokerOption.current())
        .security(BrokerOption.security()).clientId("brook-cli").maxBlock(Duration.ofSeconds(5)).batchSize(batchSize)
        .linger(Duration.ofMillis(lingerMs)).maxInFlightPerPartition(maxInFlight).durability(level)
        .idempotence(!noIdempotence).compression(codec).build());

    StdinLines in = new StdinLines(System.in);
    // Ctrl-C or SIGTERM ends the reading (the input may never end: a terminal, a pipe left open); the
    // lines sent so far are flushed and counted, and the command exits as it would at the input's end.
    try (StopSignal stop = new StopSignal(in::stop, 15)) {
      return produce(config, recordHeaders, in, stop);
    }
  }

  private int produce(ProducerConfig config, List<Header> recordHeaders, StdinLines in, StopSignal stop)
      throws IOException, InterruptedException {
    long lines = 0;
    try (BrookProducer<byte[], byte[]> producer = new BrookProducer<>(config, Serdes.bytesSerializer(),
        Serdes.bytesSerializer())) {
      read:
      for (List<String> chunk; fatal.get() == null && (chunk = in.next()) != null; ) {
        for (String line : chunk) {
          if (stop.stopping() || fatal.get() != null) {
            break read;
          }
          send(producer, line, recordHeaders);
          lines++;
        }
      }
      producer.flush();
    }
    if (fatal.get() != null) {
      throw fatal.get(); // an unknown topic or partition, an unreachable broker: ClientErrors says which
    }
    if (refused.get() > 0) {
      System.err.println("brook: " + refused.get() + " of " + lines + " records were refused: "
          + firstRefusal.get().getMessage() + " (" + firstRefusal.get().reason() + ")");
      return BrookCli.EXIT_REFUSED;
    }
    System.err.println("Produced " + lines + (lines == 1 ? " record to " : " records to ") + topic
        + (stop.stopping() ? " (stopped by " + stop.signalName() + ")" : ""));
    return 0;
  }

  /** Sends one line; a refused record is counted, any other failure ends the command. */
  private void send(BrookProducer<byte[], byte[]> producer, String line, List<Header> recordHeaders) {
    int at = keySeparator == null ? -1 : line.indexOf(keySeparator);
    byte[] key = at < 0 ? null : line.substring(0, at).getBytes(StandardCharsets.UTF_8);
    String value = at < 0 ? line : line.substring(at + keySeparator.length());
    producer.send(new ProducerRecord<>(topic, partition, null, key, value.getBytes(StandardCharsets.UTF_8),
        recordHeaders)).whenComplete((md, failure) -> {
          if (failure instanceof RecordTooLargeException || failure instanceof InvalidRecordException) {
            refused.incrementAndGet(); // this record only: the others go on
            firstRefusal.compareAndSet(null, (BrookException) failure);
          } else if (failure != null) {
            fatal.compareAndSet(null, failure instanceof BrookException b ? b
                : new BrookException("CLIENT_ERROR", failure.toString(), failure));
          }
        });
  }
}
