package io.brook.broker.storage;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/** Reads what {@link ByteWriter} wrote, from a byte array region. Bounds errors mean corruption. */
final class ByteReader {
  private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

  private byte[] buf;
  private int pos;
  private int limit;

  void wrap(byte[] buf, int from, int limit) {
    this.buf = buf;
    this.pos = from;
    this.limit = limit;
  }

  int position() {
    return pos;
  }

  void position(int position) {
    pos = position;
  }

  int limit() {
    return limit;
  }

  boolean hasRemaining() {
    return pos < limit;
  }

  static long longAt(byte[] b, int at) {
    return (long) LONG.get(b, at);
  }

  static int intAt(byte[] b, int at) {
    return (int) INT.get(b, at);
  }

  static short shortAt(byte[] b, int at) {
    return (short) SHORT.get(b, at);
  }

  int varint() {
    int result = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      checkRemaining(1);
      byte b = buf[pos++];
      result |= (b & 0x7f) << shift;
      if (b >= 0) {
        return result;
      }
    }
    throw new StorageException("corrupt batch: varint longer than 5 bytes");
  }

  long zigZagLong() {
    long z = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      checkRemaining(1);
      byte b = buf[pos++];
      z |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return (z >>> 1) ^ -(z & 1);
      }
    }
    throw new StorageException("corrupt batch: varlong longer than 10 bytes");
  }

  byte[] bytes(int length) {
    if (length < 0) {
      throw new StorageException("corrupt batch: negative length " + length);
    }
    checkRemaining(length);
    byte[] out = new byte[length];
    System.arraycopy(buf, pos, out, 0, length);
    pos += length;
    return out;
  }

  void skip(int length) {
    checkRemaining(length);
    pos += length;
  }

  private void checkRemaining(int n) {
    if (n > limit - pos) {
      throw new StorageException("corrupt batch: needs " + n + " bytes at " + pos + ", has " + (limit - pos));
    }
  }
}
