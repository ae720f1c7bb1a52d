package io.brook.broker.storage.chronicle;

import io.brook.broker.storage.StorageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.HashSet;
import java.util.Set;
import net.openhft.chronicle.core.time.TimeProvider;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.TailerDirection;
import net.openhft.chronicle.queue.impl.TableStore;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueStore;
import net.openhft.chronicle.queue.impl.single.TableStoreWriteLock;
import net.openhft.chronicle.queue.impl.table.Metadata;
import net.openhft.chronicle.queue.impl.table.SingleTableBuilder;
import net.openhft.chronicle.threads.Pauser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every Chronicle Queue internal (a class of its {@code impl} packages) Brook uses, in this one file;
 * the rest of the engine sees only Chronicle's public API ({@link ChronicleQueue}, tailers, appenders,
 * documents). Each method says why Brook needs what the public API does not give. A Chronicle upgrade
 * reads this file first.
 */
final class ChronicleInternals {
  private static final Logger log = LoggerFactory.getLogger(ChronicleInternals.class);
  static final String METADATA = "metadata.cq4t";
  static final String WRITE_LOCK = "chronicle.write.lock";
  static final String APPEND_LOCK = "chronicle.append.lock";

  private final SingleChronicleQueue queue;

  private ChronicleInternals(SingleChronicleQueue queue) {
    this.queue = queue;
  }

  /** The builder is an impl class: the public API has no other way to set the roll cycle and the clock. */
  static ChronicleInternals open(Path dir, RollCycle roll, TimeProvider time) {
    return new ChronicleInternals(SingleChronicleQueueBuilder.binary(dir).rollCycle(roll).timeProvider(time).build());
  }

  /** A queue opened read-only (the offline dump): it takes no lock and writes nothing. */
  static ChronicleInternals openReadOnly(Path dir) {
    return new ChronicleInternals(SingleChronicleQueueBuilder.binary(dir).readOnly(true).build());
  }

  /** The queue through its public interface: tailers, appenders, indexes, closing. */
  ChronicleQueue queue() {
    return queue;
  }

  /** Recovery walks the cycles (segments): their bounds are on the impl class only. */
  int firstCycle() {
    return queue.firstCycle();
  }

  int lastCycle() {
    return queue.lastCycle();
  }

  /** The next cycle that has a file, or a value at or below {@code cycle} when there is none. */
  int nextCycle(int cycle) {
    try {
      return queue.nextCycle(cycle, TailerDirection.FORWARD);
    } catch (ParseException e) {
      throw new StorageException("unreadable cycle file name in " + queue.fileAbsolutePath(), e);
    }
  }

  /**
   * Records the document at {@code headerPosition} as written in segment {@code cycle} (a no-op when
   * Chronicle did). Recovery needs it after a writer was killed between completing a document and
   * recording the segment's write position: Chronicle's appender would write after the document but
   * number its documents from 0 again. A cycle's store is internal to Chronicle.
   */
  void recordWritePosition(int cycle, long headerPosition) {
    SingleChronicleQueueStore store = queue.storeForCycle(cycle, queue.epoch(), false, null);
    if (store == null) {
      throw new StorageException("segment " + cycle + " of " + queue.fileAbsolutePath() + " cannot be opened");
    }
    try {
      store.writePosition(headerPosition);
    } finally {
      queue.closeStore(store);
    }
  }

  /**
   * Clears Chronicle's write and append locks left behind by a process killed while appending.
   *
   * <p>Chronicle only breaks such a lock when the holder's PID is dead, after a timeout. In a
   * container the dead broker and the new one are both PID 1, so that check cannot be trusted. The
   * broker holds an exclusive lock on its whole data directory before it opens any queue, so no other
   * process can be writing: every Chronicle lock found at open is stale and is cleared. The locks
   * live in the queue's metadata table store, an impl class.
   */
  static void clearStaleLocks(Path queueDir) {
    Path metadata = queueDir.resolve(METADATA);
    if (!Files.exists(metadata)) {
      return;
    }
    // The metadata file names its types by alias (SCQMeta); a fresh JVM knows them only after this.
    SingleChronicleQueueBuilder.addAliases();
    try (TableStore<Metadata.NoMeta> store =
        SingleTableBuilder.binary(metadata.toFile(), Metadata.NoMeta.INSTANCE).readOnly(false).build()) {
      try (TableStoreWriteLock write = new TableStoreWriteLock(store, Pauser::balanced, 0L);
          TableStoreWriteLock append = new TableStoreWriteLock(store, Pauser::balanced, 0L, APPEND_LOCK)) {
        boolean stale = write.locked() || append.locked();
        if (write.locked()) {
          write.forceUnlock();
        }
        if (append.locked()) {
          append.forceUnlock();
        }
        if (stale) {
          log.warn("Cleared a stale Chronicle lock in {} (left by a process stopped while appending)", queueDir);
        }
      }
    }
  }

  /** The keys Chronicle keeps in the queue's metadata.cq4t (listing bounds, locks, ...), read-only. */
  static Set<String> metadataKeys(Path queueDir) {
    try (TableStore<Metadata.NoMeta> store = readOnlyMetadata(queueDir)) {
      Set<String> keys = new HashSet<>();
      store.forEachKey(keys, (found, key, value) -> found.add(key.toString()));
      return keys;
    }
  }

  /**
   * True when the lock under {@code key} is held; only for a key the metadata has (a read-only store
   * cannot create it). The offline dump asks, to tell a torn append from a clean tail.
   */
  static boolean lockHeld(Path queueDir, String key) {
    try (TableStore<Metadata.NoMeta> store = readOnlyMetadata(queueDir);
        TableStoreWriteLock lock = new TableStoreWriteLock(store, Pauser::balanced, 0L, key)) {
      return lock.locked();
    }
  }

  private static TableStore<Metadata.NoMeta> readOnlyMetadata(Path queueDir) {
    SingleChronicleQueueBuilder.addAliases(); // the metadata file names its types by alias
    return SingleTableBuilder.binary(queueDir.resolve(METADATA).toFile(), Metadata.NoMeta.INSTANCE).readOnly(true)
        .build();
  }
}
