package io.brook.broker.storage;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/** A growable little-endian byte buffer, reused across appends so encoding allocates nothing. */
public final class ByteWriter {
  private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);

  private byte[] buf;
  private int pos;

  public ByteWriter(int initialCapacity) {
    buf = new byte[initialCapacity];
  }

  public byte[] array() {
    return buf;
  }

  public int position() {
    return pos;
  }

  public void reset() {
    pos = 0;
  }

  public void position(int position) {
    ensure(position - pos);
    pos = position;
  }

  private void ensure(int more) {
    if (pos + more > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, pos + more));
    }
  }

  public void putByte(int b) {
    ensure(1);
    buf[pos++] = (byte) b;
  }

  public void putShortAt(int at, short v) {
    SHORT.set(buf, at, v);
  }

  public void putIntAt(int at, int v) {
    INT.set(buf, at, v);
  }

  public void putLongAt(int at, long v) {
    LONG.set(buf, at, v);
  }

  public void putBytes(byte[] b) {
    ensure(b.length);
    System.arraycopy(b, 0, buf, pos, b.length);
    pos += b.length;
  }

  public void putBytes(byte[] b, int from, int length) {
    ensure(length);
    System.arraycopy(b, from, buf, pos, length);
    pos += length;
  }

  /** Unsigned LEB128. */
  public void putVarint(int v) {
    ensure(5);
    while ((v & ~0x7f) != 0) {
      buf[pos++] = (byte) ((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    buf[pos++] = (byte) v;
  }

  /** Zig-zag then LEB128, for values that may be negative (timestamp deltas). */
  public void putZigZagLong(long v) {
    ensure(10);
    long z = (v << 1) ^ (v >> 63);
    while ((z & ~0x7fL) != 0) {
      buf[pos++] = (byte) ((z & 0x7f) | 0x80);
      z >>>= 7;
    }
    buf[pos++] = (byte) z;
  }

  public static int zigZagSize(long v) {
    long z = (v << 1) ^ (v >> 63);
    int size = 1;
    while ((z & ~0x7fL) != 0) {
      size++;
      z >>>= 7;
    }
    return size;
  }

  public static int varintSize(int v) {
    int size = 1;
    while ((v & ~0x7f) != 0) {
      size++;
      v >>>= 7;
    }
    return size;
  }
}
