package io.brook.broker.storage.dump;

import io.brook.broker.records.LogRecord;
import io.brook.broker.records.ProducerStamp;
import io.brook.broker.storage.BatchCodec;
import io.brook.broker.storage.BatchHeader;
import io.brook.broker.storage.DataDirectoryLock;
import io.brook.broker.storage.StorageException;
import io.brook.broker.storage.chronicle.OfflineQueue;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.Compression;
import io.brook.protocol.batch.KafkaBatch;
import io.brook.protocol.batch.BatchReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * Reads a partition directory offline, batch by batch, and checks it: each batch's header, CRC32C and
 * records, offsets contiguous from one batch to the next, log positions and running max timestamps
 * consistent, and whether an append was cut short at the tail.
 *
 * <p>Never writes (see {@link OfflineQueue}, which reads the files for it). A broker may run meanwhile;
 * the dump is then a snapshot and says so. Only the Chronicle engine sees Chronicle: callers get
 * {@link DumpedBatch}, {@link LogRecord} and {@link DumpSummary}.
 */
public final class LogDump {
  private static final String METADATA = "metadata.cq4t";
  private static final int MAX_PROBLEMS = 100;

  private final Path dir;
  private final boolean withRecords;
  private final DumpListener listener;
  private final CRC32C crc = new CRC32C();
  private final BatchReader in = new BatchReader();
  private final List<LogRecord> decoded = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();
  /** The document being visited (the queue's buffer). */
  private byte[] buf;

  private String segment;
  private int segments;
  private long batches;
  private long records;
  private long bytes;
  private long firstOffset = -1;
  private long lastOffset = -1;
  private long expectedOffset = -1;
  private long expectedLogPosition = -1;
  private long previousRunningMax = Long.MIN_VALUE;
  private long gaps;
  private long overlaps;
  private long checksumFailures;
  private long malformed;
  private long inconsistencies;

  private LogDump(Path dir, boolean withRecords, DumpListener listener) {
    this.dir = dir;
    this.withRecords = withRecords;
    this.listener = listener;
  }

  /**
   * Dumps the partition log in {@code dir} to {@code listener} and returns what it found.
   *
   * @throws NotAPartitionDirectoryException when {@code dir} is missing or holds no partition log
   * @throws StorageException when the queue files cannot be read at all
   */
  public static DumpSummary scan(Path dir, boolean withRecords, DumpListener listener) {
    requirePartitionDirectory(dir);
    Path dataDir = dataDirectoryOf(dir);
    boolean brokerRunning = dataDir != null && DataDirectoryLock.isHeld(dataDir);
    LogDump dump = new LogDump(dir, withRecords, listener);
    // A queue whose creation a kill cut short: Chronicle would wait for it and fail, or refuse to open
    // it read-only. Say what it is instead.
    if (OfflineQueue.creationCutShort(dir)) {
      return dump.unfinishedQueue(brokerRunning);
    }
    try (OfflineQueue queue = OfflineQueue.open(dir)) {
      return dump.run(queue, brokerRunning);
    } catch (StorageException e) {
      throw e;
    } catch (RuntimeException e) { // Chronicle's own failures on unreadable files
      throw new StorageException("cannot read the queue in " + dir + ": " + e, e);
    }
  }

  /**
   * A partition (or group journal) directory: a directory holding Chronicle's metadata.cq4t.
   *
   * @throws NotAPartitionDirectoryException otherwise, with a hint
   */
  public static void requirePartitionDirectory(Path dir) {
    if (!Files.exists(dir)) {
      throw new NotAPartitionDirectoryException(dir + " does not exist");
    }
    if (!Files.isDirectory(dir)) {
      throw new NotAPartitionDirectoryException(dir + " is not a directory (give a partition directory, "
          + "e.g. data/topics/NAME/0)");
    }
    if (Files.isRegularFile(dir.resolve(METADATA))) {
      return;
    }
    String hint = Files.isRegularFile(dir.resolve("topic.properties"))
        ? " (it is a topic directory: give one of its partitions, e.g. " + dir.resolve("0") + ")"
        : " (a partition directory, e.g. data/topics/NAME/0, holds " + METADATA + " and *.cq4 segment files)";
    throw new NotAPartitionDirectoryException(dir + " is not a partition directory: no " + METADATA + hint);
  }

  /** data/ for data/topics/NAME/N and data/groups/NAME/journal-N; null for a directory elsewhere. */
  static Path dataDirectoryOf(Path dir) {
    Path abs = dir.toAbsolutePath().normalize();
    Path kind = abs.getParent() == null ? null : abs.getParent().getParent();
    if (kind == null || kind.getFileName() == null) {
      return null;
    }
    String name = kind.getFileName().toString();
    return name.equals("topics") || name.equals("groups") ? kind.getParent() : null;
  }

  /**
   * A queue whose creation a kill cut short (a new partition or group journal): its metadata.cq4t
   * unfinished, or finished without the directory listing's keys Chronicle adds next. Nothing was
   * appended; the broker removes or completes the file at its next start. With segment files beside
   * it, though, something else happened: unreadable.
   */
  private DumpSummary unfinishedQueue(boolean brokerRunning) {
    try (Stream<Path> files = Files.list(dir)) {
      if (files.anyMatch(f -> f.getFileName().toString().endsWith(".cq4"))) {
        throw new StorageException(dir.resolve(METADATA) + " was never finished, yet the directory holds "
            + "segment files");
      }
    } catch (IOException e) {
      throw new StorageException("cannot list " + dir + ": " + e.getMessage(), e);
    }
    return new DumpSummary(dir, "unknown", brokerRunning, 0, 0, 0, 0, -1, -1, 0, 0, 0, 0, 0,
        brokerRunning ? DumpSummary.Tail.APPEND_IN_PROGRESS : DumpSummary.Tail.TORN, List.of());
  }

  private DumpSummary run(OfflineQueue queue, boolean brokerRunning) {
    queue.forEachDocument(new OfflineQueue.DocumentVisitor() {
      @Override
      public void segment(String fileName, int cycle) {
        LogDump.this.segment = fileName;
        segments++;
        listener.segment(fileName, cycle);
      }

      @Override
      public void document(byte[] bytes, int length) {
        buf = bytes;
        visit(length);
      }
    });
    DumpSummary.Tail tail = tail(queue, brokerRunning);
    return new DumpSummary(dir, queue.rollLabel(), brokerRunning, segments, batches, records, bytes, firstOffset,
        lastOffset, gaps, overlaps, checksumFailures, malformed, inconsistencies, tail, List.copyOf(problems));
  }

  private void visit(int length) {
    batches++;
    bytes += length;
    int version = length > 0 ? buf[0] : -1;
    BatchHeader h;
    try {
      h = BatchCodec.header(buf, 0, length);
      if (version == BatchFormat.VERSION && BatchFormat.headerSize(buf, 0) > length) {
        throw new StorageException("a producer batch's header is cut short");
      }
    } catch (StorageException e) {
      malformed++;
      String problem = "unreadable batch header (" + length + " bytes, version " + version + ")";
      problem(problem + " in " + segment + " after offset " + (expectedOffset - 1));
      listener.batch(new DumpedBatch(segment, -1, 0, 0, 0, 0, ProducerStamp.NONE, length, false, problem, version,
          "unknown"));
      return;
    }
    String compression = compression(version);
    boolean checksumOk = BatchCodec.checksumMatches(buf, 0, length, crc);
    if (!checksumOk) {
      checksumFailures++;
      problem("checksum mismatch in the batch at offset " + h.baseOffset() + " (" + segment + ")");
    }
    String problem = decodeRecords(h, length);
    if (problem != null) {
      malformed++;
      problem("batch at offset " + h.baseOffset() + ": " + problem);
    }
    String placement = checkPlacement(h);
    problem = problem == null ? placement : placement == null ? problem : problem + "; " + placement;
    records += h.recordCount();
    if (firstOffset < 0) {
      firstOffset = h.baseOffset();
    }
    lastOffset = h.nextOffset() - 1;
    long first = !decoded.isEmpty() ? decoded.get(0).timestamp() : version == BatchFormat.VERSION
        ? BatchFormat.longAt(buf, BatchFormat.BASE_TIMESTAMP)
        : KafkaBatch.baseTimestamp(buf, BatchFormat.V2_PREFIX_SIZE);
    long max = decoded.isEmpty() ? h.runningMaxTimestamp() : Long.MIN_VALUE;
    for (LogRecord r : decoded) {
      max = Math.max(max, r.timestamp());
    }
    listener.batch(new DumpedBatch(segment, h.baseOffset(), h.recordCount(), h.appendTimeMs(), first, max,
        BatchCodec.producer(buf, 0), length, checksumOk, problem, version, compression));
    if (withRecords) {
      decoded.forEach(listener::record);
    }
  }

  /** A version 2 batch's codec, from its Kafka attributes; version 1 is never compressed. */
  private String compression(int version) {
    if (version != BatchFormat.VERSION_2) {
      return "none";
    }
    int code = KafkaBatch.attributes(buf, BatchFormat.V2_PREFIX_SIZE) & KafkaBatch.COMPRESSION_MASK;
    try {
      return Compression.ofCode(code).name().toLowerCase(java.util.Locale.ROOT);
    } catch (RuntimeException e) {
      return "unknown codec " + code;
    }
  }

  /** Decodes every record of the batch into {@code decoded}; what is wrong with them, or null. */
  private String decodeRecords(BatchHeader h, int length) {
    decoded.clear();
    if (h.recordCount() <= 0) {
      return "record count " + h.recordCount();
    }
    try {
      BatchCodec.decode(buf, 0, length, h.baseOffset(), Integer.MAX_VALUE, Integer.MAX_VALUE, decoded, in);
    } catch (RuntimeException e) { // a bounds or length error, or a record count the records do not match
      decoded.clear();
      return "records do not decode: " + e.getMessage();
    }
    return null;
  }

  /** Checks the batch against the one before it: offsets, log position, running max; a problem or null. */
  private String checkPlacement(BatchHeader h) {
    List<String> found = new ArrayList<>(2);
    if (expectedOffset >= 0 && h.baseOffset() > expectedOffset) {
      gaps++;
      found.add("gap: offsets " + expectedOffset + ".." + (h.baseOffset() - 1) + " are missing before it");
    } else if (expectedOffset >= 0 && h.baseOffset() < expectedOffset) {
      overlaps++;
      found.add("overlap: offsets " + h.baseOffset() + ".." + (Math.min(expectedOffset, h.nextOffset()) - 1)
          + " were already in an earlier batch");
    }
    if (expectedLogPosition >= 0 && h.logPosition() != expectedLogPosition) {
      inconsistencies++;
      found.add("log position " + h.logPosition() + ", expected " + expectedLogPosition);
    }
    if (h.runningMaxTimestamp() < previousRunningMax) {
      inconsistencies++;
      found.add("running max timestamp " + h.runningMaxTimestamp() + " went back from " + previousRunningMax);
    }
    expectedOffset = h.nextOffset();
    expectedLogPosition = h.endLogPosition();
    previousRunningMax = Math.max(previousRunningMax, h.runningMaxTimestamp());
    if (found.isEmpty()) {
      return null;
    }
    String problem = String.join("; ", found);
    problem("batch at offset " + h.baseOffset() + " (" + segment + "): " + problem);
    return problem;
  }

  private void problem(String line) {
    if (problems.size() < MAX_PROBLEMS) {
      problems.add(line);
    }
  }

  /**
   * What follows the last complete document: Chronicle's write (or append) lock still held means its
   * writer died mid-append (or, with a broker running, is appending); an unfinished document or
   * segment file after it is what an earlier crash left.
   */
  private static DumpSummary.Tail tail(OfflineQueue queue, boolean brokerRunning) {
    boolean locked = queue.lockHeld();
    boolean leftover = queue.unfinishedAfterLastDocument();
    if (brokerRunning) {
      return locked || leftover ? DumpSummary.Tail.APPEND_IN_PROGRESS : DumpSummary.Tail.CLEAN;
    }
    return locked ? DumpSummary.Tail.TORN : leftover ? DumpSummary.Tail.LEFTOVER : DumpSummary.Tail.CLEAN;
  }
}
