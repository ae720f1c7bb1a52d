package io.brook.protocol.batch;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import org.xerial.snappy.Snappy;
import org.xerial.snappy.SnappyError;

/**
 * The decompressed records of one batch, in an array reused batch after batch and never grown past
 * a limit: a batch whose records decompress to more fails as corrupt, so a small compressed batch
 * cannot make its reader allocate without bound (a "zip bomb"). Not thread-safe.
 */
final class DecompressionBuffer {
  /** What a reader allows unless told otherwise: 16 times Kafka's default max.message.bytes (1 MiB). */
  static final int DEFAULT_MAX_BYTES = 16 * 1024 * 1024;
  private static final int MIN_CAPACITY = 4096;

  /** xerial snappy-java's stream header: magic "\x82SNAPPY\0", then version and compatible version. */
  private static final byte[] SNAPPY_MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
  private static final int SNAPPY_HEADER_SIZE = 16;
  /** The first four magic bytes as a big-endian int: where a chunk length would be, another stream begins. */
  private static final int SNAPPY_MAGIC_HEAD = 0x82534e41;

  private byte[] buf = new byte[0];
  private int size;
  private int maxBytes = DEFAULT_MAX_BYTES;

  void maxBytes(int maxBytes) {
    if (maxBytes < 0) {
      throw new IllegalArgumentException("max decompressed bytes " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  int maxBytes() {
    return maxBytes;
  }

  byte[] array() {
    return buf;
  }

  int size() {
    return size;
  }

  /**
   * Decompresses {@code src[from, from + length)} with {@code codec} into this buffer, replacing
   * what it held.
   *
   * @param what names the batch in an error message
   * @throws CorruptBatchException when the data does not decompress, or decompresses to more than the limit
   */
  int fill(Compression codec, byte[] src, int from, int length, String what) {
    size = 0;
    try {
      if (codec == Compression.SNAPPY) {
        fillSnappy(src, from, length, what);
      } else {
        try (InputStream in = codec.decompress(src, from, length)) {
          fillFrom(in, length, what);
        }
      }
    } catch (IOException | RuntimeException | SnappyError e) {
      if (e instanceof CorruptBatchException c) {
        throw c;
      }
      throw new CorruptBatchException("corrupt " + what + ": its " + codec.name().toLowerCase()
          + " records do not decompress: " + e);
    }
    return size;
  }

  /** Reads the stream to its end, growing by doubling up to the limit, then checking it has no byte more. */
  private void fillFrom(InputStream in, int compressedLength, String what) throws IOException {
    ensure(Math.min(maxBytes, Math.max(MIN_CAPACITY, compressedLength * 4)));
    while (true) {
      int room = Math.min(buf.length, maxBytes) - size;
      if (room == 0) {
        if (size >= maxBytes) {
          if (in.read() >= 0) {
            throw tooLarge(what);
          }
          return;
        }
        ensure((int) Math.min(maxBytes, Math.max(MIN_CAPACITY, 2L * buf.length)));
        continue;
      }
      int n = in.read(buf, size, room);
      if (n < 0) {
        return;
      }
      size += n;
    }
  }

  /**
   * xerial's framing, read here rather than with its {@code SnappyInputStream} so that each chunk's
   * declared length is checked against the limit before anything is allocated, and decompressed
   * straight into the buffer. Like that stream it accepts concatenated streams, and data without
   * the header as one raw snappy block.
   */
  private void fillSnappy(byte[] src, int from, int length, String what) throws IOException {
    int end = from + length;
    if (!hasSnappyHeader(src, from, end)) {
      snappyBlock(src, from, length, what);
      return;
    }
    int p = from + SNAPPY_HEADER_SIZE;
    while (p < end) {
      if (end - p < 4) {
        throw new CorruptBatchException("corrupt " + what + ": snappy chunk length cut short");
      }
      int chunk = KafkaBatch.intAt(src, p);
      if (chunk == SNAPPY_MAGIC_HEAD && hasSnappyHeader(src, p, end)) {
        p += SNAPPY_HEADER_SIZE;
        continue;
      }
      p += 4;
      if (chunk < 0 || chunk > end - p) {
        throw new CorruptBatchException("corrupt " + what + ": snappy chunk of " + chunk + " bytes, "
            + (end - p) + " left");
      }
      snappyBlock(src, p, chunk, what);
      p += chunk;
    }
  }

  private void snappyBlock(byte[] src, int from, int length, String what) throws IOException {
    int n = Snappy.uncompressedLength(src, from, length);
    if (n < 0 || n > maxBytes - size) {
      throw tooLarge(what);
    }
    ensure(size + n);
    size += Snappy.uncompress(src, from, length, buf, size);
  }

  private static boolean hasSnappyHeader(byte[] src, int from, int end) {
    return end - from >= SNAPPY_HEADER_SIZE && Arrays.equals(src, from, from + SNAPPY_MAGIC.length,
        SNAPPY_MAGIC, 0, SNAPPY_MAGIC.length);
  }

  private void ensure(int capacity) {
    if (buf.length < capacity) {
      byte[] grown = new byte[capacity];
      System.arraycopy(buf, 0, grown, 0, size);
      buf = grown;
    }
  }

  private CorruptBatchException tooLarge(String what) {
    return CorruptBatchException.overLimit(what + ": its records decompress to more than " + maxBytes
        + " bytes, the reader's limit");
  }
}
