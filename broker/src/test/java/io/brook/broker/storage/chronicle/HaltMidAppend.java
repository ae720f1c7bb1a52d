package io.brook.broker.storage.chronicle;

import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.LogOptions;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.records.LogRecord;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * Run in a child JVM: appends {@code n} batches through ChronicleLog, then starts another document
 * and halts the JVM while holding Chronicle's write lock, as a kill -9 during an append would.
 */
public final class HaltMidAppend {
  /**
   * Runs it in a child JVM (the test JVM's flags and class path) on {@code dir} with {@code batches},
   * its output in {@code log}; true when it halted within 40 s.
   */
  public static boolean runInAChild(Path dir, int batches, File log) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(Arrays.asList(System.getProperty("brook.jvm.flags", "").trim().split("\\s+")));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), HaltMidAppend.class.getName(),
        dir.toString(), Integer.toString(batches)));
    command.removeIf(String::isEmpty);
    Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
    return child.waitFor(40, TimeUnit.SECONDS);
  }

  public static void main(String[] args) {
    Path dir = Path.of(args[0]);
    int batches = Integer.parseInt(args[1]);
    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults())) {
      for (int i = 0; i < batches; i++) {
        log.append(AppendBatch.of(List.of(LogRecord.of(null, ("v" + i).getBytes(), -1, List.of())),
            System.currentTimeMillis()));
      }
    }
    SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(dir).rollCycle(ChronicleRolls.of(SegmentRoll.HOUR)).build();
    ExcerptAppender appender = queue.createAppender();
    DocumentContext dc = appender.writingDocument();
    dc.wire().bytes().write(new byte[] {1, 2, 3, 4, 5});
    System.out.println("holding the write lock");
    System.out.flush();
    Runtime.getRuntime().halt(0);
  }
}
