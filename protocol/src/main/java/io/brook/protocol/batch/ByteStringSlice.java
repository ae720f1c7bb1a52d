package io.brook.protocol.batch;

import com.google.protobuf.ByteOutput;
import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * The bytes of a {@code ByteString} as an array range, read in place when the ByteString holds one
 * array (what parsing a message gives), joined into a copy only when it holds several pieces.
 * {@code toByteArray()} would copy every batch once more: half of a consumer's samples in an issue 11
 * profile. The range must be read, never changed: it is the ByteString's own memory.
 */
public final class ByteStringSlice extends ByteOutput {
  private final int expected;
  private byte[] array;
  private int offset;

  private ByteStringSlice(int expected) {
    this.expected = expected;
  }

  public static ByteStringSlice of(ByteString bytes) {
    ByteStringSlice slice = new ByteStringSlice(bytes.size());
    try {
      UnsafeByteOperations.unsafeWriteTo(bytes, slice);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // never: nothing here does I/O
    }
    if (slice.array == null) {
      slice.array = bytes.toByteArray(); // held in pieces: join them
      slice.offset = 0;
    }
    return slice;
  }

  public byte[] array() {
    return array;
  }

  public int offset() {
    return offset;
  }

  public int length() {
    return expected;
  }

  @Override
  public void write(byte[] value, int offset, int length) {
    if (length == expected && array == null) { // the whole in one array; a piece of a rope is shorter
      this.array = value;
      this.offset = offset;
    }
  }

  @Override
  public void writeLazy(byte[] value, int offset, int length) {
    write(value, offset, length);
  }

  @Override
  public void write(ByteBuffer value) {
    // A buffer-backed ByteString: of() copies it into an array.
  }

  @Override
  public void writeLazy(ByteBuffer value) {
    write(value);
  }

  @Override
  public void write(byte value) {
    // Only ever a piece of a ByteString held in pieces: of() joins them.
  }
}
