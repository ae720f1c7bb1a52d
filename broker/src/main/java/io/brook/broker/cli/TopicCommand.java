package io.brook.broker.cli;

import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.NewTopic;
import io.brook.client.admin.PartitionInfo;
import io.brook.client.admin.TopicInfo;
import io.grpc.ManagedChannel;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code brook topic create|list|describe|alter|delete}, on the Java client's {@link BrookAdmin}. */
@Command(name = "topic", mixinStandardHelpOptions = true, description = "Create, list, describe, alter and delete topics.",
    subcommands = {TopicCommand.Create.class, TopicCommand.ListTopics.class, TopicCommand.Describe.class,
        TopicCommand.Alter.class, TopicCommand.Delete.class})
final class TopicCommand {

  /** One admin call over a channel of --broker (its address errors are usage errors). */
  static <T> T admin(Function<BrookAdmin, T> call) {
    ManagedChannel channel = BrokerOption.channel();
    try (BrookAdmin admin = BrookAdmin.builder().channel(channel).build()) {
      return call.apply(admin);
    } finally {
      BrokerOption.close(channel);
    }
  }

  @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a topic.")
  static final class Create implements Callable<Integer> {
    @Mixin BrokerOption broker;
    @Parameters(index = "0", paramLabel = "TOPIC") String name;
    @Option(names = {"-p", "--partitions"}, description = "Number of partitions (default: the broker's, 1).")
    int partitions;
    @Option(names = {"-c", "--config"}, paramLabel = "KEY=VALUE",
        description = "Topic config, e.g. retention.ms=3600000, segment.roll=1h. Repeatable. max.record.bytes limits "
            + "each record produced over gRPC, max.message.bytes each batch produced over Kafka (docs/API.md).")
    Map<String, String> config = new LinkedHashMap<>();

    @Override
    public Integer call() {
      TopicInfo t = admin(a -> a.createTopic(new NewTopic(name, partitions, config)));
      System.out.println("Created topic " + t.name() + " with " + t.partitionCount() + " partition"
          + (t.partitionCount() == 1 ? "" : "s") + " (id " + t.topicId() + ")");
      return 0;
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List topics, one per line.")
  static final class ListTopics implements Callable<Integer> {
    @Mixin BrokerOption broker;

    @Override
    public Integer call() {
      for (TopicInfo t : admin(BrookAdmin::listTopics)) {
        System.out.println(t.name());
      }
      return 0;
    }
  }

  @Command(name = "describe", mixinStandardHelpOptions = true,
      description = "Show a topic: id, config, and per partition the start and end offsets and bytes on disk.")
  static final class Describe implements Callable<Integer> {
    @Mixin BrokerOption broker;
    @Parameters(index = "0", paramLabel = "TOPIC") String name;

    @Override
    public Integer call() {
      print(admin(a -> a.describeTopic(name)), System.out);
      return 0;
    }

    static void print(TopicInfo t, PrintStream out) {
      out.println("Topic: " + t.name() + "  id: " + t.topicId() + "  partitions: " + t.partitionCount());
      List<String> config = new ArrayList<>();
      new java.util.TreeMap<>(t.config()).forEach((k, v) -> config.add(k + "=" + v));
      out.println("Config: " + String.join(" ", config));
      out.printf("%-10s %15s %15s %12s %15s %9s%n", "PARTITION", "START-OFFSET", "END-OFFSET", "RECORDS",
          "BYTES", "SEGMENTS");
      long records = 0;
      long bytes = 0;
      for (PartitionInfo p : t.partitions()) {
        long n = p.records();
        out.printf("%-10d %15d %15d %12d %15d %9d%n", p.partition(), p.logStartOffset(), p.endOffset(), n,
            p.sizeBytes(), p.segmentCount());
        records += n;
        bytes += p.sizeBytes();
      }
      out.printf("%-10s %15s %15s %12d %15d%n", "TOTAL", "", "", records, bytes);
    }
  }

  @Command(name = "alter", mixinStandardHelpOptions = true,
      description = "Change a topic's config, or grow its partition count (never shrinks).")
  static final class Alter implements Callable<Integer> {
    @Mixin BrokerOption broker;
    @Parameters(index = "0", paramLabel = "TOPIC") String name;
    @Option(names = {"-c", "--set"}, paramLabel = "KEY=VALUE", description = "Set a config key. Repeatable. "
        + "max.record.bytes limits each record produced over gRPC, max.message.bytes each batch produced over Kafka.")
    Map<String, String> set = new LinkedHashMap<>();
    @Option(names = "--remove", paramLabel = "KEY", description = "Remove a config key (back to default). Repeatable.")
    List<String> remove = new ArrayList<>();
    @Option(names = {"-p", "--partitions"}, paramLabel = "N", description = "New total partition count.")
    Integer partitions;

    @Override
    public Integer call() {
      if (set.isEmpty() && remove.isEmpty() && partitions == null) {
        throw new CliException("nothing to alter: give --set, --remove or --partitions", BrookCli.EXIT_USAGE);
      }
      TopicInfo t = null;
      if (!set.isEmpty() || !remove.isEmpty()) {
        t = admin(a -> a.alterTopicConfig(name, set, remove));
      }
      if (partitions != null) {
        t = admin(a -> a.createPartitions(name, partitions));
      }
      Describe.print(t, System.out);
      return 0;
    }
  }

  @Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete a topic and all its records.")
  static final class Delete implements Callable<Integer> {
    @Mixin BrokerOption broker;
    @Parameters(index = "0", paramLabel = "TOPIC") String name;

    @Override
    public Integer call() {
      admin(a -> {
        a.deleteTopic(name);
        return null;
      });
      System.out.println("Deleted topic " + name);
      return 0;
    }
  }
}
