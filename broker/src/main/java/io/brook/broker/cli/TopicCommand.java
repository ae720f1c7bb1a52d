package io.brook.broker.cli;

import io.brook.protocol.v1.AdminServiceGrpc;
import io.brook.protocol.v1.AlterTopicConfigRequest;
import io.brook.protocol.v1.CreatePartitionsRequest;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DeleteTopicRequest;
import io.brook.protocol.v1.DescribeTopicRequest;
import io.brook.protocol.v1.ListTopicsRequest;
import io.brook.protocol.v1.PartitionDescription;
import io.brook.protocol.v1.TopicDescription;
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

/** {@code brook topic create|list|describe|alter|delete}. */
@Command(name = "topic", mixinStandardHelpOptions = true, description = "Create, list, describe, alter and delete topics.",
    subcommands = {TopicCommand.Create.class, TopicCommand.ListTopics.class, TopicCommand.Describe.class,
        TopicCommand.Alter.class, TopicCommand.Delete.class})
final class TopicCommand {

  static <T> T admin(Function<AdminServiceGrpc.AdminServiceBlockingStub, T> call) {
    ManagedChannel channel = BrokerOption.channel();
    try {
      return call.apply(AdminServiceGrpc.newBlockingStub(channel));
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
        description = "Topic config, e.g. retention.ms=3600000, segment.roll=1h. Repeatable.")
    Map<String, String> config = new LinkedHashMap<>();

    @Override
    public Integer call() {
      TopicDescription t = admin(a -> a.createTopic(CreateTopicRequest.newBuilder().setName(name)
          .setPartitions(partitions).putAllConfig(config).build())).getTopic();
      System.out.println("Created topic " + t.getName() + " with " + t.getPartitionsCount() + " partition"
          + (t.getPartitionsCount() == 1 ? "" : "s") + " (id " + t.getTopicId() + ")");
      return 0;
    }
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List topics, one per line.")
  static final class ListTopics implements Callable<Integer> {
    @Mixin BrokerOption broker;

    @Override
    public Integer call() {
      for (TopicDescription t : admin(a -> a.listTopics(ListTopicsRequest.getDefaultInstance())).getTopicsList()) {
        System.out.println(t.getName());
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
      print(admin(a -> a.describeTopic(DescribeTopicRequest.newBuilder().setName(name).build())).getTopic(),
          System.out);
      return 0;
    }

    static void print(TopicDescription t, PrintStream out) {
      out.println("Topic: " + t.getName() + "  id: " + t.getTopicId() + "  partitions: " + t.getPartitionsCount());
      List<String> config = new ArrayList<>();
      new java.util.TreeMap<>(t.getConfigMap()).forEach((k, v) -> config.add(k + "=" + v));
      out.println("Config: " + String.join(" ", config));
      out.printf("%-10s %15s %15s %12s %15s %9s%n", "PARTITION", "START-OFFSET", "END-OFFSET", "RECORDS",
          "BYTES", "SEGMENTS");
      long records = 0;
      long bytes = 0;
      for (PartitionDescription p : t.getPartitionsList()) {
        long n = p.getEndOffset() - p.getLogStartOffset();
        out.printf("%-10d %15d %15d %12d %15d %9d%n", p.getPartition(), p.getLogStartOffset(), p.getEndOffset(), n,
            p.getSizeBytes(), p.getSegmentCount());
        records += n;
        bytes += p.getSizeBytes();
      }
      out.printf("%-10s %15s %15s %12d %15d%n", "TOTAL", "", "", records, bytes);
    }
  }

  @Command(name = "alter", mixinStandardHelpOptions = true,
      description = "Change a topic's config, or grow its partition count (never shrinks).")
  static final class Alter implements Callable<Integer> {
    @Mixin BrokerOption broker;
    @Parameters(index = "0", paramLabel = "TOPIC") String name;
    @Option(names = {"-c", "--set"}, paramLabel = "KEY=VALUE", description = "Set a config key. Repeatable.")
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
      TopicDescription t = null;
      if (!set.isEmpty() || !remove.isEmpty()) {
        t = admin(a -> a.alterTopicConfig(AlterTopicConfigRequest.newBuilder().setName(name).putAllSet(set)
            .addAllRemove(remove).build())).getTopic();
      }
      if (partitions != null) {
        t = admin(a -> a.createPartitions(CreatePartitionsRequest.newBuilder().setName(name)
            .setTotalPartitions(partitions).build())).getTopic();
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
      admin(a -> a.deleteTopic(DeleteTopicRequest.newBuilder().setName(name).build()));
      System.out.println("Deleted topic " + name);
      return 0;
    }
  }
}
