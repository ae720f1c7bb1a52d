package io.brook.broker.storage.chronicle;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.UnsafeMemory;
import sun.misc.Unsafe;

/**
 * Copies documents into and out of mapped memory with the JVM's own copy intrinsic. On Java 9 and
 * later, Chronicle's {@code Bytes.read(byte[], int, int)} and {@code write(byte[], int, int)} between
 * an array and native memory run {@code UnsafeMemory.copyMemoryLoop}, a Java loop of two 8-byte moves
 * per iteration: 18 to 29 % of the broker's samples in the consume and produce profiles of issue 11.
 * Mapped memory comes in chunks: only a range wholly inside the current chunk is contiguous, so
 * anything else goes through Chronicle.
 */
final class MappedCopy {
  private MappedCopy() {}

  /** Reads the next {@code length} bytes of {@code from} into {@code into[0, length)}. */
  static void read(Bytes<?> from, byte[] into, int length) {
    long position = from.readPosition();
    if (length > 0 && from.isDirectMemory()) {
      long address = from.addressForRead(position, length);
      if (from.bytesStore().inside(position, length)) {
        UnsafeMemory.UNSAFE.copyMemory(null, address, into, Unsafe.ARRAY_BYTE_BASE_OFFSET, length);
        from.readSkip(length);
        return;
      }
    }
    from.read(into, 0, length);
  }

  /** Appends {@code from[offset, offset + length)} at the write position of {@code to}, moving it past them. */
  static void write(Bytes<?> to, byte[] from, int offset, int length) {
    if (offset < 0 || length < 0 || offset > from.length - length) { // Unsafe checks nothing
      throw new IndexOutOfBoundsException("[" + offset + ", " + offset + " + " + length + ") of " + from.length);
    }
    if (length == 0 || !to.isDirectMemory()) {
      to.write(from, offset, length);
      return;
    }
    long position = to.writePosition();
    to.writeSkip(length); // moves the write position; the range is checked against the chunk below
    long address = to.addressForWrite(position);
    if (to.bytesStore().inside(position, length)) {
      UnsafeMemory.UNSAFE.copyMemory(from, Unsafe.ARRAY_BYTE_BASE_OFFSET + offset, null, address, length);
    } else {
      to.write(position, from, offset, length);
    }
  }
}
