package io.brook.broker.cli;

import io.brook.broker.storage.StorageException;
import io.brook.broker.storage.dump.DumpSummary;
import io.brook.broker.storage.dump.LogDump;
import io.brook.broker.storage.dump.NotAPartitionDirectoryException;
import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code brook dump DIR...}: an offline dump of partition directories, straight from the files (no
 * broker needed, nothing written). Exit codes: 0 sound (a torn tail after a crash is sound), 1 corrupt
 * or unreadable, 2 not a partition directory.
 */
@Command(name = "dump", mixinStandardHelpOptions = true,
    description = {"Dump and check a partition's files offline: every batch (offsets, append time, timestamps, "
        + "producer, size, checksum, format version 1 or 2 and codec), with --records every record, then a summary.",
        "DIR is a partition directory such as data/topics/NAME/0 (a group journal, data/groups/NAME/journal-N, "
            + "works too). Reads only; best run while the broker is stopped (with it running, the dump is a "
            + "snapshot and says so).",
        "Exit codes: 0 sound, 1 corrupt (gap, overlap, bad checksum, malformed batch) or unreadable, "
            + "2 not a partition directory."})
final class DumpCommand implements Callable<Integer> {
  @Parameters(arity = "1..*", paramLabel = "DIR", description = "Partition directories.")
  List<Path> dirs;

  @Option(names = "--records", description = "Also print every record: offset, timestamp, key, value size, headers.")
  boolean records;

  @Option(names = "--json", description = "JSON lines for programs: partition, segment, batch, record and summary "
      + "objects, each with a \"type\".")
  boolean json;

  @Override
  public Integer call() {
    for (Path dir : dirs) {
      try {
        LogDump.requirePartitionDirectory(dir);
      } catch (NotAPartitionDirectoryException e) {
        throw new CliException("dump: " + e.getMessage(), BrookCli.EXIT_USAGE);
      }
    }
    PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8),
        1 << 16));
    int exit = 0;
    try {
      for (Path dir : dirs) {
        exit = Math.max(exit, dump(dir, out));
      }
    } finally {
      out.flush();
    }
    return exit;
  }

  private int dump(Path dir, PrintWriter out) {
    DumpPrinter printer = json ? new DumpJson(out) : new DumpText(out);
    printer.partition(dir);
    DumpSummary summary;
    try {
      summary = LogDump.scan(dir, records, printer);
    } catch (NotAPartitionDirectoryException e) {
      out.flush();
      System.err.println("brook: dump: " + e.getMessage());
      return BrookCli.EXIT_USAGE;
    } catch (StorageException e) {
      out.flush();
      System.err.println("brook: dump: " + e.getMessage());
      return BrookCli.EXIT_REFUSED;
    }
    printer.summary(summary);
    out.flush();
    if (summary.brokerRunning()) {
      System.err.println("brook: dump: warning: a broker holds the data directory of " + dir + " - this was a "
          + "snapshot of a live partition (batches appended meanwhile may be missing); stop the broker for a "
          + "definitive check");
    }
    if (summary.corrupt()) {
      System.err.println("brook: dump: " + dir + " is CORRUPT: " + DumpText.counts(summary)
          + (summary.problems().isEmpty() ? "" : "; first: " + summary.problems().get(0)));
      return BrookCli.EXIT_REFUSED;
    }
    return 0;
  }
}
