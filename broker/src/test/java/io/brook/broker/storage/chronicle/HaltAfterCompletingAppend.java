package io.brook.broker.storage.chronicle;

import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.BatchCodec;
import io.brook.broker.storage.ByteWriter;
import io.brook.broker.storage.LogOptions;
import io.brook.broker.storage.ManualClock;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.records.LogRecord;
import io.brook.broker.records.ProducerStamp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import net.openhft.chronicle.wire.Wires;

/**
 * Run in a child JVM: appends {@code n} batches through ChronicleLog at time {@code t0}, then at time
 * {@code t1} starts the next batch's document, writes all of it, marks its header complete and halts
 * the JVM - as a kill -9 inside Chronicle's closing of a document would: the document is complete
 * (readers see it), but the write lock is still held and the segment's write position and index were
 * never updated, so Chronicle's lastIndex() does not count it. Found by CrashIT (seed
 * -1158006001750368754): a batch at offset 1419 alone in a new segment.
 *
 * <p>Arguments: dir, n, roll label, t0, t1. Every record's timestamp is t0.
 */
public final class HaltAfterCompletingAppend {
  /** Runs it in a child JVM on {@code dir} and waits for the halt; the child's output goes beside dir. */
  public static void runInChild(Path dir, int batches, SegmentRoll roll, long t0, long t1) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(Arrays.asList(System.getProperty("brook.jvm.flags", "").trim().split("\\s+")));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), HaltAfterCompletingAppend.class.getName(),
        dir.toString(), String.valueOf(batches), roll.label(), String.valueOf(t0), String.valueOf(t1)));
    command.removeIf(String::isEmpty);
    Path childLog = dir.resolveSibling(dir.getFileName() + "-child.log");
    Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(childLog.toFile()).start();
    if (!child.waitFor(40, TimeUnit.SECONDS)) {
      child.destroyForcibly();
      throw new AssertionError("the child did not halt within 40 s");
    }
    String out = Files.readString(childLog);
    if (!out.contains("completed the document")) {
      throw new AssertionError("the child did not complete the document: " + out);
    }
  }

  public static void main(String[] args) {
    Path dir = Path.of(args[0]);
    int batches = Integer.parseInt(args[1]);
    SegmentRoll roll = SegmentRoll.parse(args[2]);
    long t0 = Long.parseLong(args[3]);
    long t1 = Long.parseLong(args[4]);
    long base;
    long endLogPosition;
    try (ChronicleLog log = ChronicleLog.open(dir, new LogOptions(roll, new ManualClock(t0), false))) {
      for (int i = 0; i < batches; i++) {
        log.append(AppendBatch.of(List.of(LogRecord.of(null, ("v" + i).getBytes(), t0, List.of())), t0));
      }
      base = log.endOffset();
      endLogPosition = log.sizeBytes(); // nothing deleted: the log starts at position 0
    }
    ByteWriter out = new ByteWriter(1024);
    BatchCodec.encode(out, new AppendBatch(List.of(LogRecord.of(null, "orphan".getBytes(), t0, List.of())), t1, false,
        new ProducerStamp(7, (short) 0, 0)), base, t0, endLogPosition, new CRC32C());
    SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(dir).rollCycle(ChronicleRolls.of(roll))
        .timeProvider(() -> t1).build();
    ExcerptAppender appender = queue.createAppender();
    DocumentContext dc = appender.writingDocument();
    Bytes<?> bytes = dc.wire().bytes();
    long header = bytes.writePosition() - 4;
    if (!Wires.isNotComplete(bytes.readVolatileInt(header))) {
      System.out.println("no incomplete header at " + header);
      System.out.flush();
      Runtime.getRuntime().halt(3);
    }
    bytes.write(out.array(), 0, out.position());
    bytes.writeOrderedInt(header, out.position()); // complete: what Chronicle does first when it closes a document
    System.out.println("completed the document, holding the write lock");
    System.out.flush();
    Runtime.getRuntime().halt(0);
  }
}
