package io.brook.broker.cli;

import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.GroupInfo;
import io.brook.client.admin.GroupListing;
import io.brook.client.admin.GroupMode;
import io.brook.client.admin.GroupOffset;
import io.brook.client.admin.GroupPartitionInfo;
import io.brook.client.admin.GroupState;
import io.brook.client.admin.MemberInfo;
import io.brook.client.admin.NewGroup;
import io.brook.client.admin.OffsetPosition;
import io.brook.client.errors.GroupNotEmptyException;
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
import java.util.function.Function;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code brook group list|describe|create|alter|reset|delete}, on the Java client's {@link BrookAdmin}. */
@Command(name = "group", mixinStandardHelpOptions = true,
    description = "List, describe, create, alter, reset and delete consumer groups.",
    subcommands = {GroupCommand.ListGroups.class, GroupCommand.Describe.class, GroupCommand.Create.class,
        GroupCommand.Alter.class, GroupCommand.Reset.class, GroupCommand.Delete.class})
final class GroupCommand {

  /** One admin call over a channel of --broker (its address errors are usage errors). */
  static <T> T groups(Function<BrookAdmin, T> call) {
    return TopicCommand.admin(call);
  }

  /** GROUP_NOT_EMPTY, said plainly: what to do about it. */
  static CliException explainNotEmpty(String group, String what) {
    return new CliException("cannot " + what + " group " + group + " while it has members: stop its consumers "
        + "first (or wait until their session times out) (GROUP_NOT_EMPTY)", BrookCli.EXIT_REFUSED);
  }

  static String name(GroupMode mode) {
    return mode == GroupMode.UNKNOWN ? "-" : mode.name().toLowerCase(Locale.ROOT);
  }

  static String name(GroupState state) {
    return state == GroupState.UNKNOWN ? "-" : state.name().toLowerCase(Locale.ROOT);
  }

  static GroupMode mode(String text) {
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "offset" -> GroupMode.OFFSET;
      case "ack" -> GroupMode.ACK;
      default -> throw new CliException("--mode must be offset or ack, got '" + text + "'", BrookCli.EXIT_USAGE);
    };
  }

  /** "orders:0,1 audit:3" */
  static String partitions(Map<String, List<Integer>> assignment, boolean topicsOnly) {
    List<String> parts = new ArrayList<>();
    assignment.forEach((topic, ps) -> {
      if (topicsOnly || ps.isEmpty()) {
        parts.add(topic);
      } else {
        List<String> texts = new ArrayList<>();
        ps.forEach(p -> texts.add(Integer.toString(p)));
        parts.add(topic + ":" + String.join(",", texts));
      }
    });
    return String.join(" ", parts);
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List groups: mode, state, members, and "
      + "type (brook: gRPC members; classic, consumer: Kafka's protocols; ack; none: offsets only).")
  static final class ListGroups implements Callable<Integer> {
    @Mixin BrokerOption broker;

    @Override
    public Integer call() {
      Table table = new Table("GROUP", "MODE", "STATE", "MEMBERS", "TYPE");
      for (GroupListing g : groups(BrookAdmin::listGroups)) {
        table.row(g.name(), name(g.mode()), name(g.state()), g.memberCount(), g.type());
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
      print(groups(a -> a.describeGroup(name)), System.out);
      return 0;
    }

    static void print(GroupInfo g, PrintStream out) {
      boolean ack = g.mode() == GroupMode.ACK;
      out.println("Group: " + g.name() + "  mode: " + name(g.mode()) + "  state: " + name(g.state())
          + (ack ? "" : "  generation: " + g.generation()) + "  members: " + g.members().size() + "  type: " + g.type());
      List<String> config = new ArrayList<>();
      new TreeMap<>(g.config()).forEach((k, v) -> config.add(k + "=" + v));
      if (!config.isEmpty()) { // offset-mode groups have none
        out.println("Config: " + String.join(" ", config));
      }
      out.println();
      long now = System.currentTimeMillis();
      if (!g.members().isEmpty()) {
        Table members = ack
            ? new Table("MEMBER-ID", "CLIENT-ID", "ADDRESS", "TOPICS", "LEASED", "CONNECTED", "SEEN-AGO")
            : new Table("MEMBER-ID", "CLIENT-ID", "ADDRESS", "PARTITIONS", "HEARTBEAT-AGO", "INSTANCE-ID");
        for (MemberInfo m : g.members()) {
          String seen = m.lastHeartbeatMs() > 0
              ? String.format(Locale.ROOT, "%.1fs", Math.max(0, now - m.lastHeartbeatMs()) / 1000.0) : null;
          if (ack) {
            members.row(m.memberId(), m.clientId(), m.clientAddress(), partitions(m.assignment(), true),
                m.leasedRecords(), m.connected() ? "yes" : "no", seen);
          } else {
            members.row(m.memberId(), m.clientId(), m.clientAddress(), partitions(m.assignment(), false), seen,
                m.instanceId());
          }
        }
        members.print(out);
        out.println();
      }
      Table partitions = ack
          ? new Table("TOPIC", "PARTITION", "COMMITTED", "END-OFFSET", "LAG", "UNSETTLED", "DEAD-LETTERED",
              "REDELIVERIES", "RETENTION-DELETED")
          : new Table("TOPIC", "PARTITION", "COMMITTED", "END-OFFSET", "LAG", "OWNER");
      for (GroupPartitionInfo p : g.partitions()) {
        if (ack) {
          partitions.row(p.topic(), p.partition(), p.committedOffset(), p.endOffset(), p.lag(), p.unsettledRecords(),
              p.deadLetteredRecords(), p.redeliveries(), p.retentionDeletedRecords());
        } else {
          partitions.row(p.topic(), p.partition(), p.committedOffset(), p.endOffset(), p.lag(), p.owner());
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
      GroupInfo g = groups(a -> a.createGroup(new NewGroup(name, m, config)));
      System.out.println("Created group " + g.name() + " (mode " + name(g.mode()) + ")");
      List<String> effective = new ArrayList<>();
      new TreeMap<>(g.config()).forEach((k, v) -> effective.add(k + "=" + v));
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
      Describe.print(groups(a -> a.alterGroupConfig(name, set, remove)), System.out);
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
      Map<String, List<Integer>> selection = selection();
      OffsetPosition position = position();
      return groups(admin -> {
        Map<String, Long> before = new HashMap<>();
        for (GroupOffset c : admin.listGroupOffsets(name)) {
          if (c.offset() != null) {
            before.put(c.topic() + ":" + c.partition(), c.offset());
          }
        }
        List<GroupOffset> reset;
        try {
          reset = admin.resetGroupOffsets(name, position, selection, dryRun);
        } catch (GroupNotEmptyException e) {
          throw explainNotEmpty(name, "reset the offsets of");
        }
        Table table = new Table("TOPIC", "PARTITION", "PREVIOUS", dryRun ? "WOULD-BE" : "NEW");
        List<String> errors = new ArrayList<>();
        int moved = 0;
        for (GroupOffset c : reset) {
          if (c.error() != null) {
            errors.add(c.topic() + ":" + c.partition() + ": " + c.error().getMessage() + " (ERROR_CODE_"
                + c.error().reason() + ")");
            continue;
          }
          table.row(c.topic(), c.partition(), before.get(c.topic() + ":" + c.partition()), c.offset());
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
      });
    }

    private OffsetPosition position() {
      if (target.toTime != null) {
        return OffsetPosition.timestamp(ConsumeCommand.parseTime("--to-time", target.toTime).toEpochMilli());
      }
      return switch (target.to) {
        case "earliest" -> OffsetPosition.earliest();
        case "latest" -> OffsetPosition.latest();
        default -> {
          try {
            long offset = Long.parseLong(target.to);
            if (offset < 0) {
              throw new NumberFormatException();
            }
            yield OffsetPosition.offset(offset);
          } catch (NumberFormatException e) {
            throw new CliException("--to must be earliest, latest or an offset >= 0, got '" + target.to + "'",
                BrookCli.EXIT_USAGE);
          }
        }
      };
    }

    /** --topic T (every partition) and T:P, merged per topic in the order given; none: every partition. */
    private Map<String, List<Integer>> selection() {
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
      whole.forEach(t -> byTopic.put(t, List.of())); // no partitions: all of them
      return byTopic;
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
        groups(a -> {
          a.deleteGroup(name);
          return null;
        });
      } catch (GroupNotEmptyException e) {
        throw explainNotEmpty(name, "delete");
      }
      System.out.println("Deleted group " + name);
      return 0;
    }
  }
}
