package io.brook.broker.cli;

import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.ForwardCursor;
import io.brook.client.admin.ForwardRouteInfo;
import io.brook.client.admin.ForwardRouteState;
import java.io.PrintStream;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code brook forward list|status|pause|resume} (D71): the forward routes to Kafka clusters, which
 * the broker's config file defines (D68), on the Java client's {@link BrookAdmin}.
 */
@Command(name = "forward", mixinStandardHelpOptions = true,
    description = "Show, pause and resume the routes that forward topics to Kafka clusters (defined in the "
        + "broker's config file as forward.<route>.<key>).",
    subcommands = {ForwardCommand.ListRoutes.class, ForwardCommand.Status.class, ForwardCommand.Pause.class,
        ForwardCommand.Resume.class})
final class ForwardCommand {

  static String name(ForwardRouteState s) {
    return s.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  static String seconds(double s) {
    return String.format(Locale.ROOT, "%.1fs", s);
  }

  static long errors(ForwardRouteInfo r) {
    return r.errors().values().stream().mapToLong(Long::longValue).sum();
  }

  static void table(List<ForwardRouteInfo> routes, PrintStream out) {
    Table table = new Table("ROUTE", "SOURCE", "TARGET", "STATE", "FORWARDED", "LAG", "LAG-AGE", "DROPPED", "ERRORS");
    for (ForwardRouteInfo r : routes) {
      table.row(r.name(), r.source(), r.target(), name(r.state()), r.forwardedRecords(), r.lagRecords(),
          seconds(r.lagSeconds()), r.droppedRecords(), errors(r));
    }
    table.print(out);
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "List the forward routes: source, target, "
      + "state, records forwarded since the broker started, lag (records and the oldest one's age), records "
      + "retention dropped before they were forwarded, and failures.")
  static final class ListRoutes implements Callable<Integer> {
    @Mixin BrokerOption broker;

    @Override
    public Integer call() {
      List<ForwardRouteInfo> routes = TopicCommand.admin(BrookAdmin::listForwardRoutes);
      if (routes.isEmpty()) {
        System.out.println("No forward routes (define them in the broker's config file as forward.<route>.<key>).");
        return 0;
      }
      table(routes, System.out);
      return 0;
    }
  }

  @Command(name = "status", mixinStandardHelpOptions = true, description = "Show one route in full: its Kafka "
      + "cluster, counts, failures by kind and the last one, and per source partition the cursor (the next offset "
      + "to forward), the end offset and the lag. Without ROUTE: every route, as list does.")
  static final class Status implements Callable<Integer> {
    @Mixin BrokerOption broker;
    @Parameters(index = "0", paramLabel = "ROUTE", arity = "0..1") String route;

    @Override
    public Integer call() {
      if (route == null) {
        return new ListRoutes().call();
      }
      print(TopicCommand.admin(a -> a.describeForwardRoute(route)), System.out);
      return 0;
    }

    static void print(ForwardRouteInfo r, PrintStream out) {
      out.println("Route: " + r.name() + "  state: " + name(r.state()));
      out.println("Source: " + r.source() + "  target: " + r.target() + "  bootstrap: " + r.bootstrapServers());
      out.println("Forwarded: " + r.forwardedRecords() + " records, " + r.forwardedBytes() + " bytes  lag: "
          + r.lagRecords() + " records, " + seconds(r.lagSeconds()) + "  dropped: " + r.droppedRecords());
      StringBuilder errors = new StringBuilder("Errors: " + errors(r));
      new TreeMap<>(r.errors()).forEach((kind, n) -> errors.append("  ").append(kind).append('=').append(n));
      out.println(errors);
      if (!r.lastError().isEmpty()) {
        out.println("Last error: " + r.lastError() + " (at " + Instant.ofEpochMilli(r.lastErrorAtMs()) + ")");
      }
      out.println("Cursor group: __forward." + r.name());
      out.println();
      Table partitions = new Table("TOPIC", "PARTITION", "POSITION", "END-OFFSET", "LAG");
      for (ForwardCursor c : r.partitions()) {
        partitions.row(c.topic(), c.partition(), c.position(), c.endOffset(),
            Math.max(0, c.endOffset() - c.position()));
      }
      partitions.print(out);
    }
  }

  @Command(name = "pause", mixinStandardHelpOptions = true, description = "Stop forwarding on a route; records in "
      + "flight are still acknowledged and committed. Kept with the route's cursor: a restart keeps it paused. "
      + "Needs admin on the route's source topic (a prefix route: on its prefix).")
  static final class Pause implements Callable<Integer> {
    @Mixin BrokerOption broker;
    @Parameters(index = "0", paramLabel = "ROUTE") String route;

    @Override
    public Integer call() {
      ForwardRouteInfo r = TopicCommand.admin(a -> a.pauseForwardRoute(route));
      System.out.println("Paused forward route " + r.name() + " (" + r.lagRecords() + " records behind)");
      return 0;
    }
  }

  @Command(name = "resume", mixinStandardHelpOptions = true, description = "Forward again from the route's cursor. "
      + "Same permission as pause.")
  static final class Resume implements Callable<Integer> {
    @Mixin BrokerOption broker;
    @Parameters(index = "0", paramLabel = "ROUTE") String route;

    @Override
    public Integer call() {
      ForwardRouteInfo r = TopicCommand.admin(a -> a.resumeForwardRoute(route));
      System.out.println("Resumed forward route " + r.name() + " (state " + name(r.state()) + ", " + r.lagRecords()
          + " records behind)");
      return 0;
    }
  }
}
