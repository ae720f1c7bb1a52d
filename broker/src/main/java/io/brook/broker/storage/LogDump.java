package io.brook.broker.storage;

import io.brook.broker.records.LogRecord;
import io.brook.broker.records.ProducerStamp;
import io.brook.protocol.batch.BatchFormat;
import io.brook.protocol.batch.BatchReader;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.impl.TableStore;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.impl.single.TableStoreWriteLock;
import net.openhft.chronicle.queue.impl.table.Metadata;
import net.openhft.chronicle.queue.impl.table.SingleTableBuilder;
import net.openhft.chronicle.threads.Pauser;
import net.openhft.chronicle.wire.DocumentContext;
import net.openhft.chronicle.wire.Wires;

/**
 * Reads a partition directory offline, batch by batch, and checks it: each batch's header, CRC32C and
 * records, offsets contiguous from one batch to the next, log positions and running max timestamps
 * consistent, and whether an append was cut short at the tail.
 *
 * <p>Never writes: the queue is opened read-only, Chronicle's locks are only read, and the tail is
 * inspected through a read-only file channel. A broker may run meanwhile (Chronicle readers are safe
 * beside a writer); the dump is then a snapshot and says so. Only the storage package sees Chronicle:
 * callers get {@link DumpedBatch}, {@link LogRecord} and {@link DumpSummary}.
 */
public final class LogDump {
  private static final String METADATA = "metadata.cq4t";
  /** The directory listing's keys, added right after the metadata file: a read-only open needs them. */
  private static final List<String> LISTING_KEYS =
      List.of("listing.highestCycle", "listing.lowestCycle", "listing.modCount");
  private static final String WRITE_LOCK = "chronicle.write.lock";
  private static final String APPEND_LOCK = "chronicle.append.lock";
  private static final int MAX_PROBLEMS = 100;
  /** Bytes looked at after the last document for leftovers of an unfinished one. */
  private static final int TAIL_PROBE = 64;

  private final Path dir;
  private final boolean withRecords;
  private final DumpListener listener;
  private final CRC32C crc = new CRC32C();
  private final BatchReader in = new BatchReader();
  private final List<LogRecord> decoded = new ArrayList<>();
  private final List<String> problems = new ArrayList<>();
  private byte[] buf = new byte[64 * 1024];

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
    if (UnfinishedFiles.metadata(dir) || !dump.chronicleKeys().containsAll(LISTING_KEYS)) {
      return dump.unfinishedQueue(brokerRunning);
    }
    try (SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(dir).readOnly(true).build()) {
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

  private DumpSummary run(SingleChronicleQueue queue, boolean brokerRunning) {
    RollCycle roll = queue.rollCycle();
    File lastFile = null;
    long lastDocumentEnd = -1;
    int cycle = Integer.MIN_VALUE;
    try (ExcerptTailer tailer = queue.createTailer()) {
      while (true) {
        try (DocumentContext dc = tailer.readingDocument()) {
          if (!dc.isPresent()) {
            break;
          }
          int c = roll.toCycle(dc.index());
          if (c != cycle) {
            cycle = c;
            lastFile = tailer.currentFile();
            segment = lastFile == null ? "cycle " + c : lastFile.getName();
            segments++;
            listener.segment(segment, c);
          }
          Bytes<?> doc = dc.wire().bytes();
          int length = (int) doc.readRemaining();
          if (buf.length < length) {
            buf = new byte[Math.max(length, buf.length * 2)];
          }
          lastDocumentEnd = doc.readLimit(); // the file position where the next document's header goes
          doc.read(buf, 0, length);
          visit(length);
        }
      }
    }
    DumpSummary.Tail tail = tail(lastFile, lastDocumentEnd, brokerRunning);
    return new DumpSummary(dir, rollLabel(roll), brokerRunning, segments, batches, records, bytes, firstOffset,
        lastOffset, gaps, overlaps, checksumFailures, malformed, inconsistencies, tail, List.copyOf(problems));
  }

  private void visit(int length) {
    batches++;
    bytes += length;
    if (length < BatchFormat.HEADER_SIZE || buf[0] != BatchFormat.VERSION
        || BatchFormat.headerSize(buf, 0) > length) {
      malformed++;
      String problem = "unreadable batch header (" + length + " bytes, version " + (length > 0 ? buf[0] : -1) + ")";
      problem(problem + " in " + segment + " after offset " + (expectedOffset - 1));
      listener.batch(new DumpedBatch(segment, -1, 0, 0, 0, 0, ProducerStamp.NONE, length, false, problem));
      return;
    }
    BatchHeader h = BatchCodec.header(buf, 0, length);
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
    long first = decoded.isEmpty() ? BatchFormat.longAt(buf, BatchFormat.BASE_TIMESTAMP) : decoded.get(0).timestamp();
    long max = decoded.isEmpty() ? h.runningMaxTimestamp() : Long.MIN_VALUE;
    for (LogRecord r : decoded) {
      max = Math.max(max, r.timestamp());
    }
    listener.batch(new DumpedBatch(segment, h.baseOffset(), h.recordCount(), h.appendTimeMs(), first, max,
        BatchCodec.producer(buf, 0), length, checksumOk, problem));
    if (withRecords) {
      decoded.forEach(listener::record);
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
   * writer died mid-append; bytes after the last document are an unfinished one (Chronicle writes a
   * document's header when the document completes, so a killed append leaves bytes without one), and
   * so is a segment file whose own header was never written (a kill while it was created).
   */
  private DumpSummary.Tail tail(File lastFile, long lastDocumentEnd, boolean brokerRunning) {
    boolean locked = chronicleLockHeld();
    boolean leftover = (lastFile != null && bytesAfter(lastFile, lastDocumentEnd))
        || !UnfinishedFiles.segments(dir).isEmpty();
    if (brokerRunning) {
      return locked || leftover ? DumpSummary.Tail.APPEND_IN_PROGRESS : DumpSummary.Tail.CLEAN;
    }
    return locked ? DumpSummary.Tail.TORN : leftover ? DumpSummary.Tail.LEFTOVER : DumpSummary.Tail.CLEAN;
  }

  /**
   * Chronicle's write or append lock is held. A lock whose key the metadata does not have yet was
   * never taken (a kill between the queue's creation and its first lock leaves that); a read-only
   * store cannot create the key, so only the keys present are looked at.
   */
  private boolean chronicleLockHeld() {
    Set<String> keys = chronicleKeys();
    for (String key : List.of(WRITE_LOCK, APPEND_LOCK)) {
      if (keys.contains(key)) {
        try (TableStore<Metadata.NoMeta> store = metadataStore();
            TableStoreWriteLock lock = new TableStoreWriteLock(store, Pauser::balanced, 0L, key)) {
          if (lock.locked()) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** The keys Chronicle keeps in the queue's metadata.cq4t (listing bounds, locks, ...). */
  private Set<String> chronicleKeys() {
    try (TableStore<Metadata.NoMeta> store = metadataStore()) {
      Set<String> keys = new HashSet<>();
      store.forEachKey(keys, (found, key, value) -> found.add(key.toString()));
      return keys;
    }
  }

  private TableStore<Metadata.NoMeta> metadataStore() {
    SingleChronicleQueueBuilder.addAliases(); // the metadata file names its types by alias
    return SingleTableBuilder.binary(dir.resolve(METADATA).toFile(), Metadata.NoMeta.INSTANCE).readOnly(true).build();
  }

  /** Walks Chronicle's document headers after {@code end}: metadata documents are skipped, anything else counts. */
  private static boolean bytesAfter(File file, long end) {
    ByteBuffer b = ByteBuffer.allocate(TAIL_PROBE).order(ByteOrder.LITTLE_ENDIAN);
    long pos = (end + 3) & ~3L; // headers are 4-byte aligned
    try (FileChannel ch = FileChannel.open(file.toPath(), StandardOpenOption.READ)) {
      for (int step = 0; step < 1024; step++) {
        b.clear();
        int n = ch.read(b, pos);
        if (n < 4) {
          return false; // the end of the file
        }
        int header = b.getInt(0);
        if (header == 0) {
          for (int i = 4; i < n; i++) {
            if (b.get(i) != 0) {
              return true; // content of a document whose header was never written
            }
          }
          return false;
        }
        if (header == Wires.END_OF_DATA) {
          return false; // the segment was closed when the queue rolled
        }
        if (Wires.isNotComplete(header) || (header & Wires.META_DATA) == 0) {
          return true; // a document still being written, or one appended after our read
        }
        pos = (pos + 4 + Wires.lengthOf(header) + 3) & ~3L;
      }
      return false;
    } catch (IOException e) {
      throw new StorageException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private static String rollLabel(RollCycle roll) {
    return Stream.of(SegmentRoll.values()).filter(r -> r.rollCycle().format().equals(roll.format())
        && r.lengthMillis() == roll.lengthInMillis()).map(SegmentRoll::label).findFirst().orElse(roll.toString());
  }
}
