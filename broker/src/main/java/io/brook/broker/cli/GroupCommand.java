package io.brook.broker.cli;

import io.brook.protocol.v1.AlterGroupConfigRequest;
import io.brook.protocol.v1.Boundary;
import io.brook.protocol.v1.CommittedOffset;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.DeleteGroupRequest;
import io.brook.protocol.v1.DescribeGroupRequest;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.GroupDescription;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupPartition;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.GroupState;
import io.brook.protocol.v1.GroupSummary;
import io.brook.protocol.v1.ListGroupsRequest;
import io.brook.protocol.v1.MemberDescription;
import io.brook.protocol.v1.Position;
import io.brook.protocol.v1.ResetGroupOffsetsRequest;
import io.brook.protocol.v1.ResetGroupOffsetsResponse;
import io.brook.protocol.v1.TopicPartitions;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code brook group list|describe|create|alter|reset|delete}. */
@Command(name = "group", mixinStandardHelpOptions = true,
    description = "List, describe, create, alter, reset and delete consumer groups.",
    subcommands = {GroupCommand.ListGroups.class, GroupCommand.Describe.class, GroupCommand.Create.class,
        GroupCommand.Alter.class, GroupCommand.Reset.class, GroupCommand.Delete.class})
final class GroupCommand {

  static <T> T groups(Function<GroupServiceGrpc.GroupServiceBlockingStub, T> call) {
    ManagedChannel channel = BrokerOption.channel();
    try {
      return call.apply(GroupServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS));
    } finally {
      BrokerOption.close(channel);
    }
  }

  /** GROUP_NOT_EMPTY, said plainly: what to do about it. */
  static RuntimeException explainNotEmpty(StatusRuntimeException e, String group, String what) {
    if (ClientErrors.reason(e).equals("GROUP_NOT_EMPTY")) {
      return new CliException("cannot " + what + " group " + group + " while it has members: stop its consumers "
          + "first (or wait until their session times out) (GROUP_NOT_EMPTY)", BrookCli.EXIT_REFUSED);
    }
    return e;
  }

  static String name(GroupMode mode) {
    return mode == GroupMode.GROUP_MODE_UNSPECIFIED ? "-" : mode.name().substring("GROUP_MODE_".length())
        .toLowerCase(Locale.ROOT);
  }

  static String name(GroupState state) {
    return state == GroupState.GROUP_STATE_UNSPECIFIED ? "-" : state.name().substring("GROUP_STATE_".length())
        .toLowerCase(Locale.ROOT);
  }

  static GroupMode mode(String text) {
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "offset" -> GroupMode.GROUP_MODE_OFFSET;
      case "ack" -> GroupMode.GROUP_MODE_ACK;
      default -> throw new CliException("--mode must be offset or ack, got '" + text + "'", BrookCli.EXIT_USAGE);
    };
  }

  /** "orders:0,1 audit:3" */
  static String partitions(List<TopicPartitions> list, boolean topicsOnly) {
    List<String> parts = new ArrayList<>();
    for (TopicPartitions tps : list) {
      if (topicsOnly || tps.getPartitionsCount() == 0) {
        parts.add(tps.getTopic());
      } else {
        List<String> ps = new ArrayList<>();
        tps.getPartitionsList().forEach(p -> ps.add(Integer.toString(p)));
        parts.add(tps.getTopic() + ":" + String.join(",", ps));
      }
    }
    return String.join(" ", parts);
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List groups: mode, state, members.")
  static final class ListGroups implements Callable<Integer> {
    @Mixin BrokerOption broker;

    @Override
    public Integer call() {
      Table table = new Table("GROUP", "MODE", "STATE", "MEMBERS");
      for (GroupSummary g : groups(s -> s.listGroups(ListGroupsRequest.getDefaultInstance())).getGroupsList()) {
        table.row(g.getName(), name(g.getMode()), name(g.getState()), g.getMemberCount());
      }
      table.print(System.out);
      return 0;
    }
  }

  @Command(name = "describe", mixinStandardHelpOptions = true, description = "Show a group: config, members, and per "
      + "partition the committed offset, end offset and lag, with the owner (offset mode) or the unsettled, "
      + "dead-lettered and redelivered counts (ack mode).")
  static final class Describe implements Callable<Integer> {
    @Mixin BrokerOption broker;
    @Parameters(index = "0", paramLabel = "GROUP") String name;

    @Override
    public Integer call() {
      print(groups(s -> s.describeGroup(DescribeGroupRequest.newBuilder().setGroup(name).build())).getGroup(),
          System.out);
      return 0;
    }

    static void print(GroupDescription g, PrintStream out) {
      boolean ack = g.getMode() == GroupMode.GROUP_MODE_ACK;
      out.println("Group: " + g.getName() + "  mode: " + name(g.getMode()) + "  state: " + name(g.getState())
          + (ack ? "" : "  generation: " + g.getGeneration()) + "  members: " + g.getMembersCount());
      List<String> config = new ArrayList<>();
      new TreeMap<>(g.getConfigMap()).forEach((k, v) -> config.add(k + "=" + v));
      if (!config.isEmpty()) { // offset-mode groups have none
        out.println("Config: " + String.join(" ", config));
      }
      out.println();
      long now = System.currentTimeMillis();
      if (g.getMembersCount() > 0) {
        Table members = ack
            ? new Table("MEMBER-ID", "CLIENT-ID", "ADDRESS", "TOPICS", "LEASED", "CONNECTED", "SEEN-AGO")
            : new Table("MEMBER-ID", "CLIENT-ID", "ADDRESS", "PARTITIONS", "HEARTBEAT-AGO");
        for (MemberDescription m : g.getMembersList()) {
          String seen = m.getLastHeartbeatMs() > 0
              ? String.format(Locale.ROOT, "%.1fs", Math.max(0, now - m.getLastHeartbeatMs()) / 1000.0) : null;
          if (ack) {
            members.row(m.getMemberId(), m.getClientId(), m.getClientAddress(), partitions(m.getAssignmentList(), true),
                m.getLeasedRecords(), m.getConnected() ? "yes" : "no", seen);
          } else {
            members.row(m.getMemberId(), m.getClientId(), m.getClientAddress(), partitions(m.getAssignmentList(), false),
                seen);
          }
        }
        members.print(out);
        out.println();
      }
      Table partitions = ack
          ? new Table("TOPIC", "PARTITION", "COMMITTED", "END-OFFSET", "LAG", "UNSETTLED", "DEAD-LETTERED",
              "REDELIVERIES", "RETENTION-DELETED")
          : new Table("TOPIC", "PARTITION", "COMMITTED", "END-OFFSET", "LAG", "OWNER");
      for (GroupPartition p : g.getPartitionsList()) {
        Long committed = p.hasCommittedOffset() ? p.getCommittedOffset() : null;
        Long lag = p.hasLag() ? p.getLag() : null;
        if (ack) {
          partitions.row(p.getTopic(), p.getPartition(), committed, p.getEndOffset(), lag, p.getUnsettledRecords(),
              p.getDeadLetteredRecords(), p.getRedeliveries(), p.getRetentionDeletedRecords());
        } else {
          partitions.row(p.getTopic(), p.getPartition(), committed, p.getEndOffset(), lag, p.getMemberId());
        }
      }
      partitions.print(out);
    }
  }

  @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a group (consumers also create "
      + "one when they first join; this sets its mode and config first).")
  static final class Create implements Callable<Integer> {
    @Mixin BrokerOption broker;
    @Parameters(index = "0", paramLabel = "GROUP") String name;
    @Option(names = "--mode", paramLabel = "offset|ack", description = "offset (default): partitions assigned to "
        + "members, offsets committed; ack: records leased and acked one by one.", defaultValue = "offset")
    String mode;
    @Option(names = {"-c", "--config"}, paramLabel = "KEY=VALUE", description = "Group config, e.g. "
        + "ack.timeout.ms=30000, max.delivery.attempts=5, dead.letter.topic=NAME, max.unsettled.per.partition=1000, "
        + "auto.offset.reset=earliest. Repeatable.")
    Map<String, String> config = new LinkedHashMap<>();

    @Override
    public Integer call() {
      GroupMode m = mode(mode);
      GroupDescription g = groups(s -> s.createGroup(CreateGroupRequest.newBuilder().setGroup(name).setMode(m)
          .putAllConfig(config).build())).getGroup();
      System.out.println("Created group " + g.getName() + " (mode " + name(g.getMode()) + ")");
      List<String> effective = new ArrayList<>();
      new TreeMap<>(g.getConfigMap()).forEach((k, v) -> effective.add(k + "=" + v));
      System.out.println("Config: " + String.join(" ", effective));
      return 0;
    }
  }

  @Command(name = "alter", mixinStandardHelpOptions = true, description = "Change a group's config.")
  static final class Alter implements Callable<Integer> {
    @Mixin BrokerOption broker;
    @Parameters(index = "0", paramLabel = "GROUP") String name;
    @Option(names = {"-c", "--set"}, paramLabel = "KEY=VALUE", description = "Set a config key. Repeatable.")
    Map<String, String> set = new LinkedHashMap<>();
    @Option(names = "--remove", paramLabel = "KEY", description = "Remove a config key (back to default). Repeatable.")
    List<String> remove = new ArrayList<>();

    @Override
    public Integer call() {
      if (set.isEmpty() && remove.isEmpty()) {
        throw new CliException("nothing to alter: give --set or --remove", BrookCli.EXIT_USAGE);
      }
      Describe.print(groups(s -> s.alterGroupConfig(AlterGroupConfigRequest.newBuilder().setGroup(name).putAllSet(set)
          .addAllRemove(remove).build())).getGroup(), System.out);
      return 0;
    }
  }

  @Command(name = "reset", mixinStandardHelpOptions = true, description = "Move a group's committed offsets (only "
      + "while the group has no members). Without --topic: every partition the group has offsets for.")
  static final class Reset implements Callable<Integer> {
    @Mixin BrokerOption broker;
    @Parameters(index = "0", paramLabel = "GROUP") String name;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

    static final class Target {
      @Option(names = "--to", paramLabel = "earliest|latest|OFFSET", description = "The log start, the end, or an offset.")
      String to;
      @Option(names = "--to-time", paramLabel = "ISO-8601", description = "The first record at or after this time, "
          + "e.g. 2026-11-22T10:00:00Z or 2026-11-22 (the end when there is none).")
      String toTime;
    }

    @Option(names = {"-t", "--topic"}, paramLabel = "TOPIC[:PARTITION]", description = "Only this topic (all its "
        + "partitions) or this partition. Repeatable.")
    List<String> topics = new ArrayList<>();
    @Option(names = "--dry-run", description = "Show what would be committed; change nothing.")
    boolean dryRun;

    @Override
    public Integer call() {
      ResetGroupOffsetsRequest request = ResetGroupOffsetsRequest.newBuilder().setGroup(name)
          .addAllPartitions(selection()).setPosition(position()).setDryRun(dryRun).build();
      ManagedChannel channel = BrokerOption.channel();
      try {
        GroupServiceGrpc.GroupServiceBlockingStub stub = GroupServiceGrpc.newBlockingStub(channel);
        Map<String, Long> before = new HashMap<>();
        for (CommittedOffset c : stub.withDeadlineAfter(30, TimeUnit.SECONDS).fetchCommittedOffsets(
            FetchCommittedOffsetsRequest.newBuilder().setGroup(name).build()).getOffsetsList()) {
          if (c.hasOffset()) {
            before.put(c.getTopic() + ":" + c.getPartition(), c.getOffset());
          }
        }
        ResetGroupOffsetsResponse response;
        try {
          response = stub.withDeadlineAfter(30, TimeUnit.SECONDS).resetGroupOffsets(request);
        } catch (StatusRuntimeException e) {
          throw explainNotEmpty(e, name, "reset the offsets of");
        }
        Table table = new Table("TOPIC", "PARTITION", "PREVIOUS", dryRun ? "WOULD-BE" : "NEW");
        List<String> errors = new ArrayList<>();
        int moved = 0;
        for (CommittedOffset c : response.getOffsetsList()) {
          if (c.getErrorCodeValue() != 0) {
            errors.add(c.getTopic() + ":" + c.getPartition() + ": " + c.getErrorMessage() + " (" + c.getErrorCode() + ")");
            continue;
          }
          table.row(c.getTopic(), c.getPartition(), before.get(c.getTopic() + ":" + c.getPartition()),
              c.hasOffset() ? c.getOffset() : null);
          moved++;
        }
        table.print(System.out);
        System.out.println(dryRun ? "Dry run: nothing changed (" + moved + " partition" + (moved == 1 ? "" : "s")
            + " of group " + name + " would be reset)"
            : "Reset " + moved + " partition" + (moved == 1 ? "" : "s") + " of group " + name);
        for (String e : errors) {
          System.err.println("brook: " + e);
        }
        return errors.isEmpty() ? 0 : BrookCli.EXIT_REFUSED;
      } finally {
        BrokerOption.close(channel);
      }
    }

    private Position position() {
      if (target.toTime != null) {
        return Position.newBuilder().setTimestampMs(ConsumeCommand.parseTime("--to-time", target.toTime).toEpochMilli())
            .build();
      }
      return switch (target.to) {
        case "earliest" -> Position.newBuilder().setBoundary(Boundary.BOUNDARY_EARLIEST).build();
        case "latest" -> Position.newBuilder().setBoundary(Boundary.BOUNDARY_LATEST).build();
        default -> {
          try {
            long offset = Long.parseLong(target.to);
            if (offset < 0) {
              throw new NumberFormatException();
            }
            yield Position.newBuilder().setOffset(offset).build();
          } catch (NumberFormatException e) {
            throw new CliException("--to must be earliest, latest or an offset >= 0, got '" + target.to + "'",
                BrookCli.EXIT_USAGE);
          }
        }
      };
    }

    /** --topic T (every partition) and T:P, merged per topic in the order given. */
    private List<TopicPartitions> selection() {
      Map<String, List<Integer>> byTopic = new LinkedHashMap<>();
      Set<String> whole = new HashSet<>();
      for (String t : topics) {
        int colon = t.lastIndexOf(':');
        if (colon < 0) {
          whole.add(t);
          byTopic.computeIfAbsent(t, k -> new ArrayList<>());
          continue;
        }
        String topic = t.substring(0, colon);
        int partition;
        try {
          partition = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
          partition = -1;
        }
        if (topic.isEmpty() || partition < 0) {
          throw new CliException("--topic must be TOPIC or TOPIC:PARTITION, got '" + t + "'", BrookCli.EXIT_USAGE);
        }
        byTopic.computeIfAbsent(topic, k -> new ArrayList<>()).add(partition);
      }
      List<TopicPartitions> list = new ArrayList<>();
      byTopic.forEach((t, ps) -> list.add(TopicPartitions.newBuilder().setTopic(t)
          .addAllPartitions(whole.contains(t) ? List.of() : ps).build())); // no partitions: all of them
      return list;
    }
  }

  @Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete a group and its committed offsets "
      + "(only while it has no members).")
  static final class Delete implements Callable<Integer> {
    @Mixin BrokerOption broker;
    @Parameters(index = "0", paramLabel = "GROUP") String name;

    @Override
    public Integer call() {
      try {
        groups(s -> s.deleteGroup(DeleteGroupRequest.newBuilder().setGroup(name).build()));
      } catch (StatusRuntimeException e) {
        throw explainNotEmpty(e, name, "delete");
      }
      System.out.println("Deleted group " + name);
      return 0;
    }
  }
}
