package io.brook.broker.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code brook} command. Exit codes: 0 done, 1 the broker refused the request (the message says
 * why), 2 bad usage, 3 the broker could not be reached. A command that runs until stopped and is
 * stopped by SIGINT or SIGTERM exits as if it had ended by itself, or with 128 + the signal when it
 * could not finish in time ({@link StopSignal}).
 */
@Command(name = "brook", mixinStandardHelpOptions = true, versionProvider = BrookCli.Version.class,
    description = "Brook: a single-node message broker with Kafka's data model over gRPC.",
    subcommands = {BrokerCommand.class, TopicCommand.class, ProduceCommand.class, ConsumeCommand.class,
        GroupCommand.class, ForwardCommand.class, DumpCommand.class, ConfigCommand.class,
        CommandLine.HelpCommand.class})
public final class BrookCli {
  public static final int EXIT_REFUSED = 1;
  public static final int EXIT_USAGE = 2;
  public static final int EXIT_UNREACHABLE = 3;

  public static void main(String[] args) {
    // Also set here, before any Chronicle class loads, for a JVM started without bin/brook's flags:
    // Chronicle must never report usage to its analytics service.
    System.setProperty("chronicle.analytics.disable", "true");
    System.setProperty("chronicle.announcer.disable", "true");
    // Chronicle's disk space monitor logs an ERROR ("the JVM may crash") on any volume with less
    // than 200 MB unallocated, every 10 s: the broker's DiskGuard is what keeps mapped writes off a
    // full disk and says so in its own lines, so that ERROR only misleads. Off unless set explicitly.
    if (System.getProperty("chronicle.disk.monitor.disable") == null) {
      System.setProperty("chronicle.disk.monitor.disable", "true");
    }
    System.exit(run(args));
  }

  static int run(String... args) {
    CommandLine cli = new CommandLine(new BrookCli());
    cli.setExecutionExceptionHandler(new ClientErrors());
    return cli.execute(args);
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = BrookCli.class.getPackage().getImplementationVersion();
      return new String[] {"brook " + (v == null ? "dev" : v)};
    }
  }
}
