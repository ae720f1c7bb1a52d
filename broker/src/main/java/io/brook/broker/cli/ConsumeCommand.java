package io.brook.broker.cli;

import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.grpc.ManagedChannel;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code brook consume TOPIC}: prints records. Without --follow it reads every partition up to the
 * end offsets seen at start and exits; with --follow it waits for new records until --max records,
 * Ctrl-C or SIGTERM ({@link PartitionConsume}; a stop by signal that finished its work exits 0, see
 * {@link StopSignal}). With --group it is a member of a consumer group ({@link
 * GroupConsume}: offset mode, or with --ack {@link AckConsume}: ack mode). Offset-mode reading goes
 * through the Java client's consumer.
 */
@Command(name = "consume", mixinStandardHelpOptions = true, description = "Print records of a topic, one per line.")
final class ConsumeCommand implements Callable<Integer> {
  @Mixin BrokerOption broker;
  @Parameters(index = "0", paramLabel = "TOPIC") String topic;
  @Option(names = "--from", paramLabel = "earliest|latest|OFFSET",
      description = "Where to start in each partition (default: earliest; with --follow: latest). With --group: "
          + "where partitions without a committed offset start, earliest or latest (default latest).")
  String from;
  @Option(names = "--from-time", paramLabel = "ISO-8601",
      description = "Start at the first record at or after this time, e.g. 2026-11-22T10:00:00Z or 2026-11-22.")
  String fromTime;
  @Option(names = {"-p", "--partition"}, description = "Only this partition.")
  Integer partition;
  @Option(names = {"-n", "--max"}, description = "Stop after this many records.")
  Long max;
  @Option(names = {"-f", "--follow"}, description = "Keep waiting for new records.")
  boolean follow;
  // picocli formats descriptions (String.format): %% prints one percent sign.
  @Option(names = "--format", description = "Output template (default %%v): %%v value, %%k key, %%o offset, "
      + "%%p partition, %%t timestamp ms, %%T ISO time, %%h headers, %%a delivery attempt (with --ack; empty "
      + "otherwise), %%%% percent, \\t tab.", defaultValue = "%v")
  String format;
  @Option(names = {"-g", "--group"}, paramLabel = "GROUP", description = "Consume as a member of this consumer group: "
      + "the broker assigns partitions and the group's committed offsets say where to start; what is printed is "
      + "committed as it goes. --from earliest|latest (default latest) applies to partitions without a committed offset.")
  String group;
  @Option(names = "--ack", description = "With --group: ack mode. Records are leased to this member, printed, then acked "
      + "one by one; records not acked are delivered again.")
  boolean ack;
  @Option(names = "--nack-every", paramLabel = "N", description = "With --ack: nack every Nth delivered record instead "
      + "of acking it, so that it is delivered again (it is printed each time).")
  Integer nackEvery;
  @Option(names = "--nack-delay-ms", paramLabel = "MS", description = "With --nack-every: deliver nacked records again "
      + "no sooner than this (default 0).")
  Integer nackDelayMs;
  @Option(names = "--max-outstanding", paramLabel = "N", description = "With --ack: the most records leased to this "
      + "member and not yet settled (default: the broker's, 1000; with --max, at most --max).")
  Long maxOutstanding;
  @Option(names = "--ack-flush-ms", paramLabel = "MS", description = "With --ack: how often acks and nacks are sent "
      + "to the broker together (default 100; 0 sends each at once).")
  Long ackFlushMs;
  @Option(names = "--idle-ms", paramLabel = "MS", description = "With --ack and without --follow: stop once no record "
      + "came for this long (default 2000).")
  Long idleMs;
  @Option(names = "--client-id", paramLabel = "ID", description = "With --group: offset mode, a name shown by "
      + "'group describe' (default brook-cli). Ack mode: the member's id; its leases outlive this process (until they "
      + "expire) and the next consumer with the same id takes them over.")
  String clientId;
  @Option(names = "--session-timeout-ms", paramLabel = "MS", description = "With --group (offset mode): a member silent "
      + "this long is removed from the group (default 10000; the broker bounds it).")
  Integer sessionTimeoutMs;

  @Override
  public Integer call() throws Exception {
    checkGroupOptions();
    if (group != null) {
      return ack ? new AckConsume(this).run() : new GroupConsume(this).run();
    }
    if (from != null && fromTime != null) {
      throw new CliException("give --from or --from-time, not both", BrookCli.EXIT_USAGE);
    }
    if (max != null && max < 0) {
      throw new CliException("--max must be >= 0", BrookCli.EXIT_USAGE);
    }
    RecordFormat recordFormat = new RecordFormat(format);
    Instant startTime = startTime();
    ManagedChannel channel = BrokerOption.channel();
    OutputStream out = new BufferedOutputStream(System.out, 1 << 16);
    // Ctrl-C or SIGTERM ends the reading; what was read is printed and the command exits 0.
    try (StopSignal stop = new StopSignal(() -> {}, 15)) {
      try {
        return readPartitions(channel, out, recordFormat, startTime, stop);
      } finally {
        out.flush();
        BrokerOption.close(channel);
      }
    }
  }

  private int readPartitions(ManagedChannel channel, OutputStream out, RecordFormat recordFormat, Instant startTime,
      StopSignal stop) throws IOException {
    int partitions = AdminServiceGrpc.newBlockingStub(channel)
        .describeTopic(DescribeTopicRequest.newBuilder().setName(topic).build()).getTopic().getPartitionsCount();
    List<Integer> chosen = new ArrayList<>();
    if (partition != null) {
      if (partition < 0 || partition >= partitions) {
        throw new CliException("topic " + topic + " has no partition " + partition + " (it has " + partitions + ")",
            BrookCli.EXIT_USAGE);
      }
      chosen.add(partition);
    } else {
      for (int p = 0; p < partitions; p++) {
        chosen.add(p);
      }
    }
    if (max == null || max > 0) {
      new PartitionConsume(this, chosen, recordFormat, out, stop).run(channel, startTime);
    }
    return 0;
  }

  /** Refuses group options without --group, ack options without --ack, and the reverse. */
  private void checkGroupOptions() {
    if (max != null && max < 0) {
      throw new CliException("--max must be >= 0", BrookCli.EXIT_USAGE);
    }
    if (group == null) {
      String groupOnly = ack ? "--ack" : clientId != null ? "--client-id" : sessionTimeoutMs != null
          ? "--session-timeout-ms" : null;
      if (groupOnly != null) {
        throw new CliException(groupOnly + " needs --group", BrookCli.EXIT_USAGE);
      }
    } else {
      if (partition != null) {
        throw new CliException("--partition cannot be used with --group: the group assigns the partitions",
            BrookCli.EXIT_USAGE);
      }
      if (fromTime != null) {
        throw new CliException("--from-time cannot be used with --group: move the group's offsets with "
            + "'brook group reset " + group + " --to-time TIME' instead", BrookCli.EXIT_USAGE);
      }
      if (from != null && !from.equals("earliest") && !from.equals("latest")) {
        throw new CliException("--from with --group must be earliest or latest (where partitions without a committed "
            + "offset start); to start at an offset, use 'brook group reset " + group + " --to OFFSET'",
            BrookCli.EXIT_USAGE);
      }
      if (ack && sessionTimeoutMs != null) {
        throw new CliException("--session-timeout-ms applies to offset mode (without --ack)", BrookCli.EXIT_USAGE);
      }
    }
    if (!ack) {
      String ackOnly = nackEvery != null ? "--nack-every" : nackDelayMs != null ? "--nack-delay-ms"
          : maxOutstanding != null ? "--max-outstanding" : idleMs != null ? "--idle-ms"
          : ackFlushMs != null ? "--ack-flush-ms" : null;
      if (ackOnly != null) {
        throw new CliException(ackOnly + " needs --group and --ack", BrookCli.EXIT_USAGE);
      }
    }
    if (nackDelayMs != null && nackEvery == null) {
      throw new CliException("--nack-delay-ms needs --nack-every", BrookCli.EXIT_USAGE);
    }
    if (nackEvery != null && nackEvery < 1) {
      throw new CliException("--nack-every must be >= 1", BrookCli.EXIT_USAGE);
    }
    if (nackDelayMs != null && nackDelayMs < 0) {
      throw new CliException("--nack-delay-ms must be >= 0", BrookCli.EXIT_USAGE);
    }
    if (maxOutstanding != null && maxOutstanding < 1) {
      throw new CliException("--max-outstanding must be >= 1", BrookCli.EXIT_USAGE);
    }
    if (ackFlushMs != null && (ackFlushMs < 0 || ackFlushMs > 60_000)) {
      throw new CliException("--ack-flush-ms must be between 0 and 60000", BrookCli.EXIT_USAGE);
    }
    if (idleMs != null && idleMs < 0) {
      throw new CliException("--idle-ms must be >= 0", BrookCli.EXIT_USAGE);
    }
    if (sessionTimeoutMs != null && sessionTimeoutMs < 1) {
      throw new CliException("--session-timeout-ms must be >= 1", BrookCli.EXIT_USAGE);
    }
  }

  /** The time of --from-time, or null; checks --from (earliest, latest or an offset). */
  private Instant startTime() {
    if (fromTime != null) {
      return parseTime("--from-time", fromTime);
    }
    String f = from == null ? "earliest" : from;
    if (!f.equals("earliest") && !f.equals("latest")) {
      try {
        Long.parseLong(f);
      } catch (NumberFormatException e) {
        throw new CliException("--from must be earliest, latest or an offset, got '" + f + "'", BrookCli.EXIT_USAGE);
      }
    }
    return null;
  }

  /** ISO-8601 with or without an offset (UTC when none), or a date (midnight UTC). */
  static Instant parseTime(String option, String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e1) {
      try {
        return OffsetDateTime.parse(text).toInstant();
      } catch (DateTimeParseException e2) {
        try {
          return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e3) {
          try {
            return LocalDate.parse(text).atStartOfDay().toInstant(ZoneOffset.UTC);
          } catch (DateTimeParseException e4) {
            throw new CliException(option + ": cannot read '" + text
                + "' as ISO-8601 (e.g. 2026-11-22T10:00:00Z, 2026-11-22T10:00:00+01:00, 2026-11-22)", BrookCli.EXIT_USAGE);
          }
        }
      }
    }
  }
}
