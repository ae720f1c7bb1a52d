package io.brook.perf;

import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.chronicle.ChronicleLog;
import io.brook.broker.storage.LogOptions;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.SegmentRoll;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import net.openhft.chronicle.core.time.SetTimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;

/**
 * Reproduces the 10 s consumer stall seen once by {@link RetentionDriver} (docs/PERFORMANCE.md,
 * "Retention under load"), in two steps, without a broker:
 *
 * <ol>
 *   <li><b>empty</b>: a {@link ChronicleLog} whose oldest cycle file is empty (as a file re-created by
 *       a mapping is). A read with no pooled tailer, as every read right after deleteOldestSegments
 *       is, creates one; Chronicle's tailer constructor goes {@code toStart()}, maps the oldest listed
 *       cycle and waits for its first header up to the queue's timeoutMS (10 s).</li>
 *   <li><b>race</b>: raw Chronicle, one thread unlinking (and restoring) the oldest cycle file while
 *       another creates tailers: when the unlink lands between Chronicle's {@code File.exists()} and its
 *       {@code RandomAccessFile(file, "rw")}, the file is created again, empty, and that tailer waits
 *       10 s. deleteOldestSegments unlinks the oldest files right after releasing the close gate, while
 *       the reads it held back create their tailers.</li>
 * </ol>
 *
 * <pre>java -cp perf/target/brook-perf.jar io.brook.perf.TailerStartRace [DIR=/tmp] [race rounds=20000]</pre>
 */
public final class TailerStartRace {
  public static void main(String[] args) throws Exception {
    Path base = Path.of(args.length > 0 ? args[0] : System.getProperty("java.io.tmpdir"));
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    Path dir = Files.createTempDirectory(base, "tailer-start-race");
    try {
      emptyOldestCycle(dir.resolve("empty"));
      race(dir.resolve("race"), rounds);
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
    System.exit(0);
  }

  /** Step 1: five one-second segments; after deleting the first, the next oldest file is made empty. */
  private static void emptyOldestCycle(Path dir) throws Exception {
    Files.createDirectories(dir);
    AtomicLong now = new AtomicLong(1_700_000_000_000L);
    InstantSource clock = new InstantSource() {
      @Override
      public Instant instant() {
        return Instant.ofEpochMilli(now.get());
      }

      @Override
      public long millis() {
        return now.get();
      }
    };
    ChronicleLog log = ChronicleLog.open(dir, new LogOptions(SegmentRoll.ONE_SECOND, clock, false));
    try {
      for (int segment = 0; segment < 5; segment++) {
        List<LogRecord> records = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
          records.add(LogRecord.of(null, new byte[1024], now.get(), List.of()));
        }
        log.append(AppendBatch.of(records, now.get()));
        now.addAndGet(1000);
      }
      long newest = log.endOffset() - 100;
      log.read(newest, 100, 1 << 20); // a pooled tailer, as a tail has
      List<Path> files = cycleFiles(dir);
      log.deleteOldestSegments(1); // closes the pooled tailers, unlinks the first file, refreshes the listing
      Path oldest = files.get(1);
      Files.delete(oldest);
      Files.createFile(oldest);
      long start = System.nanoTime();
      int n = log.read(newest, 100, 1 << 20).records().size();
      System.out.printf("empty: with the oldest cycle file empty, a read of the newest batch (%d records) took %.0f ms%n",
          n, (System.nanoTime() - start) / 1e6);
    } finally {
      log.close();
    }
  }

  /** Step 2: tailers created while the oldest cycle file is unlinked and restored, until one takes over 1 s. */
  private static void race(Path dir, int rounds) throws Exception {
    Files.createDirectories(dir);
    SetTimeProvider time = new SetTimeProvider(1_700_000_000_000L);
    try (SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(dir).rollCycle(TestRollCycles.TEST_SECONDLY)
        .timeProvider(time).build()) {
      ExcerptAppender appender = queue.createAppender();
      for (int cycle = 0; cycle < 3; cycle++) {
        try (var dc = appender.writingDocument()) {
          dc.wire().bytes().write(new byte[1024]);
        }
        time.advanceMillis(1000);
      }
      Path oldest = cycleFiles(dir).get(0);
      Path saved = dir.resolveSibling("oldest-cycle.saved");
      Files.copy(oldest, saved, StandardCopyOption.REPLACE_EXISTING);
      AtomicBoolean stop = new AtomicBoolean();
      Thread deleter = new Thread(() -> {
        try {
          while (!stop.get()) {
            Files.copy(saved, oldest, StandardCopyOption.REPLACE_EXISTING);
            spin(ThreadLocalRandom.current().nextInt(200));
            Files.deleteIfExists(oldest);
            spin(ThreadLocalRandom.current().nextInt(200));
          }
        } catch (Exception e) {
          e.printStackTrace();
        }
      }, "deleter");
      deleter.start();
      long worst = 0;
      int i = 0;
      for (; i < rounds && worst < 1_000_000_000L; i++) {
        long start = System.nanoTime();
        ExcerptTailer tailer = queue.createTailer();
        tailer.close();
        worst = Math.max(worst, System.nanoTime() - start);
      }
      stop.set(true);
      deleter.join();
      System.out.printf("race: %d tailers created while the oldest cycle file was unlinked and restored: "
          + "the slowest took %.0f ms%s%n", i, worst / 1e6, worst >= 1_000_000_000L ? " (stopped there)" : "");
    }
  }

  private static List<Path> cycleFiles(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".cq4")).sorted().toList();
    }
  }

  private static void spin(int micros) {
    long end = System.nanoTime() + micros * 1000L;
    while (System.nanoTime() < end) {
      Thread.onSpinWait();
    }
  }
}
