package io.brook.broker.groups;

import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.Directories;
import io.brook.broker.storage.LogFactory;
import io.brook.broker.storage.LogOptions;
import io.brook.broker.records.LogRecord;
import io.brook.broker.storage.PartitionLog;
import io.brook.broker.storage.ReadResult;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.storage.StorageException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A group's durable state: an append-only journal of events in a partition log (Chronicle in the
 * broker), under {@code groups/NAME/journal-N/}. Every change is one append of a batch of events:
 * a memory-mapped write, so it survives kill -9 without a force per commit or ack. When the journal
 * has grown by {@code compactAfter} events it is compacted: the current state is written as a
 * snapshot into journal-(N+1), closed by a {@link JournalEvent.SnapshotEnd}, and journal-N is
 * deleted. Recovery replays the newest journal whose snapshot is complete.
 */
final class GroupJournal implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GroupJournal.class);
  private static final String PREFIX = "journal-";
  private static final int SNAPSHOT_BATCH = 10_000;

  private final Path groupDir;
  private final LogFactory logFactory;
  private final InstantSource clock;
  private final long compactAfter;
  private PartitionLog log0;
  private long sequence;
  private long eventsSinceSnapshot;

  private GroupJournal(Path groupDir, LogFactory logFactory, InstantSource clock, long compactAfter) {
    this.groupDir = groupDir;
    this.logFactory = logFactory;
    this.clock = clock;
    this.compactAfter = compactAfter;
  }

  /** Creates a new group's journal holding {@code initial} as its snapshot. */
  static GroupJournal create(Path groupDir, LogFactory logFactory, InstantSource clock, long compactAfter,
      List<JournalEvent> initial) {
    GroupJournal j = new GroupJournal(groupDir, logFactory, clock, compactAfter);
    j.sequence = 1;
    j.log0 = j.writeSnapshot(1, initial);
    return j;
  }

  /** A journal opened from disk, and the events to replay. */
  record Opened(GroupJournal journal, List<JournalEvent> events) {}

  /** Opens a group's journal, or returns null when the directory holds no complete one. */
  static Opened open(Path groupDir, LogFactory logFactory, InstantSource clock, long compactAfter) {
    List<Long> sequences = sequences(groupDir);
    for (int i = sequences.size() - 1; i >= 0; i--) {
      long seq = sequences.get(i);
      Path dir = groupDir.resolve(PREFIX + seq);
      PartitionLog l = logFactory.open(dir, options(clock));
      List<JournalEvent> events;
      try {
        events = readAll(l);
      } catch (RuntimeException e) {
        l.close();
        throw e;
      }
      boolean complete = events.stream().anyMatch(e -> e instanceof JournalEvent.SnapshotEnd);
      if (!complete) { // a compaction that a crash cut short: the previous journal is whole
        l.close();
        deleteTree(dir);
        log.warn("Dropped the incomplete journal {} (a compaction was interrupted)", dir);
        continue;
      }
      for (int k = 0; k < i; k++) {
        deleteTree(groupDir.resolve(PREFIX + sequences.get(k)));
      }
      GroupJournal j = new GroupJournal(groupDir, logFactory, clock, compactAfter);
      j.sequence = seq;
      j.log0 = l;
      j.eventsSinceSnapshot = events.size();
      return new Opened(j, events);
    }
    return null;
  }

  /** Appends events as one batch: all of them survive a crash, or none. */
  void append(List<JournalEvent> events) {
    if (events.isEmpty()) {
      return;
    }
    List<LogRecord> records = new ArrayList<>(events.size());
    for (JournalEvent e : events) {
      records.add(LogRecord.of(null, JournalEvent.encode(e), -1, List.of()));
    }
    log0.append(AppendBatch.of(records, clock.millis()));
    eventsSinceSnapshot += events.size();
  }

  void append(JournalEvent event) {
    append(List.of(event));
  }

  boolean needsCompaction() {
    return eventsSinceSnapshot >= compactAfter;
  }

  /** Replaces the journal with a snapshot of the current state (the events that rebuild it). */
  void compact(List<JournalEvent> snapshot) {
    long next = sequence + 1;
    PartitionLog fresh = writeSnapshot(next, snapshot);
    PartitionLog old = log0;
    long oldSeq = sequence;
    log0 = fresh;
    sequence = next;
    eventsSinceSnapshot = snapshot.size() + 1;
    old.close();
    deleteTree(groupDir.resolve(PREFIX + oldSeq));
  }

  /** Forces the journal to the device (at a clean stop). */
  void flush() {
    log0.flush();
  }

  @Override
  public void close() {
    log0.close();
  }

  private PartitionLog writeSnapshot(long seq, List<JournalEvent> snapshot) {
    Path dir = groupDir.resolve(PREFIX + seq);
    deleteTree(dir);
    PartitionLog l = logFactory.open(dir, options(clock));
    try {
      List<LogRecord> batch = new ArrayList<>();
      for (JournalEvent e : snapshot) {
        batch.add(LogRecord.of(null, JournalEvent.encode(e), -1, List.of()));
        if (batch.size() == SNAPSHOT_BATCH) {
          l.append(AppendBatch.of(batch, clock.millis()));
          batch = new ArrayList<>();
        }
      }
      batch.add(LogRecord.of(null, JournalEvent.encode(new JournalEvent.SnapshotEnd()), -1, List.of()));
      l.append(AppendBatch.of(batch, clock.millis()));
      l.flush(); // the old journal is deleted next: the snapshot must be on the device first
      return l;
    } catch (RuntimeException e) {
      l.close();
      throw e;
    }
  }

  private static List<JournalEvent> readAll(PartitionLog l) {
    List<JournalEvent> events = new ArrayList<>();
    long offset = l.startOffset();
    while (offset < l.endOffset()) {
      ReadResult r = l.read(offset, 10_000, 16 << 20);
      for (LogRecord rec : r.records()) {
        try {
          events.add(JournalEvent.decode(rec.value()));
        } catch (IOException e) {
          throw new StorageException("corrupt group journal record at offset " + rec.offset() + ": " + e.getMessage(), e);
        }
      }
      offset = r.nextOffset();
    }
    return events;
  }

  private static LogOptions options(InstantSource clock) {
    return new LogOptions(SegmentRoll.DAY, clock, false);
  }

  private static List<Long> sequences(Path groupDir) {
    if (!Files.isDirectory(groupDir)) {
      return List.of();
    }
    try (Stream<Path> dirs = Files.list(groupDir)) {
      return dirs.map(p -> p.getFileName().toString())
          .filter(n -> n.startsWith(PREFIX) && n.substring(PREFIX.length()).matches("\\d{1,18}"))
          .map(n -> Long.parseLong(n.substring(PREFIX.length())))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void deleteTree(Path root) {
    try {
      Directories.deleteTree(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
