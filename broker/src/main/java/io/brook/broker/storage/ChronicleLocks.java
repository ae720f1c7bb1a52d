package io.brook.broker.storage;

import java.nio.file.Files;
import java.nio.file.Path;
import net.openhft.chronicle.queue.impl.TableStore;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.impl.single.TableStoreWriteLock;
import net.openhft.chronicle.queue.impl.table.Metadata;
import net.openhft.chronicle.queue.impl.table.SingleTableBuilder;
import net.openhft.chronicle.threads.Pauser;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Clears Chronicle's write and append locks left behind by a process killed while appending.
 *
 * <p>Chronicle only breaks such a lock when the holder's PID is dead, after a timeout. In a
 * container the dead broker and the new one are both PID 1, so that check cannot be trusted. The
 * broker holds an exclusive lock on its whole data directory before it opens any queue, so no other
 * process can be writing: every Chronicle lock found at open is stale and is cleared.
 */
final class ChronicleLocks {
  private static final Logger log = LoggerFactory.getLogger(ChronicleLocks.class);
  private static final String METADATA = "metadata.cq4t";
  private static final String APPEND_LOCK = "chronicle.append.lock";

  private ChronicleLocks() {}

  static void clearStale(Path queueDir) {
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
}
