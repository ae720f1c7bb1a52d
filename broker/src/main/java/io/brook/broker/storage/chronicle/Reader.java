package io.brook.broker.storage.chronicle;

import io.brook.broker.storage.BatchCodec;
import io.brook.broker.storage.BatchHeader;
import io.brook.broker.storage.StorageException;
import io.brook.protocol.batch.BatchReader;
import java.util.zip.CRC32C;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;
import net.openhft.chronicle.wire.Wires;

/**
 * A pooled tailer with its copy buffer: tailers are not thread-safe, so each read borrows one from
 * the {@link ReaderPool}. It may still hold the batch its last read stopped in (the held-batch cache).
 */
final class Reader {
  final ExcerptTailer tailer;
  final BatchReader in = new BatchReader();
  final CRC32C crc = new CRC32C();
  byte[] buf = new byte[64 * 1024];
  /** Bytes of the document {@link #readInto} copied into {@code buf}. */
  int length;
  /**
   * {@code buf} holds the batch [heldBase, heldNext) of {@code length} bytes, checked, and the tailer
   * stands on the batch after it: set by {@link #hold} only (the reads), cleared by every other borrower.
   */
  boolean held;
  long heldBase;
  long heldNext;

  Reader(ExcerptTailer tailer) {
    this.tailer = tailer;
  }

  /** True when the buffer holds the batch with {@code offset}. */
  boolean holds(long offset) {
    return held && heldBase <= offset && offset < heldNext;
  }

  /** Copies the next document into the buffer; false when there is none yet. */
  boolean readInto() {
    return readIntoAt() >= 0;
  }

  /** As {@link #readInto}, returning the file position of the document's header; -1 when there is none. */
  long readIntoAt() {
    try (DocumentContext dc = tailer.readingDocument()) {
      if (!dc.isPresent()) {
        return -1;
      }
      Bytes<?> bytes = dc.wire().bytes();
      long headerPosition = bytes.readPosition() - Wires.SPB_HEADER_SIZE;
      copy(bytes);
      return headerPosition;
    }
  }

  /** Copies the rest of the document {@code bytes} (read from its start) into the buffer. */
  void copy(Bytes<?> bytes) {
    held = false; // buf is overwritten below, whether or not the copy completes
    int documentLength = (int) bytes.readRemaining();
    if (buf.length < documentLength) {
      buf = new byte[Math.max(documentLength, buf.length * 2)];
    }
    MappedCopy.read(bytes, buf, documentLength);
    length = documentLength;
  }

  /** The header of the batch at Chronicle index {@code index}, or null when there is no document there. */
  BatchHeader headerAt(long index) {
    if (!tailer.moveToIndex(index)) {
      return null;
    }
    try (DocumentContext dc = tailer.readingDocument()) {
      if (!dc.isPresent()) {
        return null;
      }
      held = false; // the head of buf is overwritten
      Bytes<?> bytes = dc.wire().bytes();
      int documentLength = (int) bytes.readRemaining();
      bytes.read(buf, 0, Math.min(documentLength, BatchCodec.MAX_HEADER_SIZE));
      return BatchCodec.header(buf, 0, documentLength);
    }
  }

  /**
   * After {@link #readInto}: checks the batch in the buffer (when {@code verify}) and makes it the
   * batch this reader holds, the tailer standing on the one after it.
   */
  BatchHeader hold(long next, boolean verify) {
    if (verify && !BatchCodec.checksumMatches(buf, 0, length, crc)) {
      throw new StorageException("batch at offset " + next + " fails its checksum");
    }
    BatchHeader h = BatchCodec.header(buf, 0, length);
    if (next < h.baseOffset() || next >= h.nextOffset()) { // a misplaced tailer must fail, not skip offsets
      throw new StorageException("read for offset " + next + " found the batch [" + h.baseOffset() + ", "
          + h.nextOffset() + ")");
    }
    held = true;
    heldBase = h.baseOffset();
    heldNext = h.nextOffset();
    return h;
  }
}
