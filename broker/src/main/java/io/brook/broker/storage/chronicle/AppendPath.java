package io.brook.broker.storage.chronicle;

import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.AppendResult;
import io.brook.broker.storage.BatchCodec;
import io.brook.broker.storage.BatchHeader;
import io.brook.broker.storage.ByteWriter;
import io.brook.broker.storage.StorageException;
import java.io.File;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.zip.CRC32C;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.wire.DocumentContext;

/**
 * The one writer: encodes a batch, writes it as one Chronicle document, adds a segment to the index
 * when the append started one, and publishes the new end; and forces what was written. Not
 * thread-safe: {@link ChronicleLog} calls it under its append lock only.
 */
final class AppendPath {
  private final Path dir;
  private final ExcerptAppender appender;
  private final SegmentIndex index;
  private final LogBounds bounds;
  private final ByteWriter scratch = new ByteWriter(64 * 1024);
  private final CRC32C crc = new CRC32C();
  /** Segment files appended to since the last flush. */
  private final Set<File> unflushed = new LinkedHashSet<>();
  private boolean newFileSinceFlush;
  private long filesForced;
  private int lastCycle;

  AppendPath(Path dir, ExcerptAppender appender, SegmentIndex index, LogBounds bounds, int lastCycle) {
    this.dir = dir;
    this.appender = appender;
    this.index = index;
    this.bounds = bounds;
    this.lastCycle = lastCycle;
  }

  AppendResult append(AppendBatch batch) {
    long base = bounds.end();
    BatchHeader h = BatchCodec.encode(scratch, batch, base, bounds.runningMaxTimestamp(), bounds.endLogPosition(), crc);
    try (DocumentContext dc = appender.writingDocument()) {
      boolean written = false;
      try {
        Bytes<?> out = dc.wire().bytes();
        MappedCopy.write(out, scratch.array(), 0, scratch.position());
        if (batch.kafka() != null) { // a Kafka producer's records follow the header as they came
          MappedCopy.write(out, batch.kafka().array(), BatchCodec.kafkaRecordsFrom(batch),
              BatchCodec.kafkaRecordsLength(batch));
        }
        written = true;
      } finally {
        if (!written) {
          dc.rollbackOnClose(); // whatever failed (an Error too): never commit half a batch
        }
      }
    }
    int cycle = appender.cycle(); // not lastIndexAppended(): Chronicle computes that by scanning
    if (cycle != lastCycle || unflushed.isEmpty()) {
      unflushed.add(appender.currentFile()); // otherwise it is in the set already
    }
    if (cycle != lastCycle) {
      newFileSinceFlush = true; // a segment file was created: its directory entry needs forcing too
      index.add(new Segment(cycle, base, h.runningMaxTimestamp(), h.logPosition(), appender.currentFile()));
      lastCycle = cycle;
    }
    bounds.appended(h); // publishes the batch to readers
    return new AppendResult(base, h.recordCount(), h.appendTimeMs(), bounds.start());
  }

  /**
   * Forces every segment file appended to since the last flush (fsync: on Linux it writes back the
   * dirty pages of the mapping; Chronicle's own sync() is msync(MS_ASYNC) by default, which waits
   * for nothing), and the directory when a segment file was created, so the file itself survives a
   * power loss too.
   */
  void flush() {
    for (File f : unflushed) {
      force(f.toPath(), StandardOpenOption.WRITE);
    }
    if (newFileSinceFlush) {
      force(dir, StandardOpenOption.READ);
    }
    unflushed.clear();
    newFileSinceFlush = false;
  }

  private void force(Path path, StandardOpenOption mode) {
    try (FileChannel c = FileChannel.open(path, mode)) {
      c.force(true);
      filesForced++;
    } catch (IOException e) {
      throw new StorageException("cannot force " + path + " to the device: " + e.getMessage(), e);
    }
  }

  /** Files and directories forced so far (tests check what flush() covers). */
  long filesForced() {
    return filesForced;
  }

  void close() {
    appender.close();
  }
}
