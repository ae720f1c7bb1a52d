package io.brook.protocol.batch;

import com.github.luben.zstd.RecyclingBufferPool;
import com.github.luben.zstd.ZstdInputStreamNoFinalizer;
import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import net.jpountz.lz4.LZ4FrameInputStream;
import net.jpountz.lz4.LZ4FrameOutputStream;
import org.xerial.snappy.SnappyInputStream;
import org.xerial.snappy.SnappyOutputStream;

/**
 * The codecs of a Kafka record batch v2, by the code in its attributes' low three bits. Each uses the
 * library and the framing kafka-clients 4.3.1 uses, so Kafka's producer and consumer read what these
 * streams write and the other way round: JDK gzip; xerial snappy-java's stream framing
 * ({@code SnappyOutputStream}, not the raw block and not Google's framing format); the LZ4 frame
 * format with 64 KiB independent blocks and no checksums but the descriptor's (what Kafka's
 * {@code Lz4BlockOutputStream} writes); zstd-jni's streaming frames. Versions: the parent pom, D45.
 */
public enum Compression {
  NONE(0),
  GZIP(1),
  SNAPPY(2),
  LZ4(3),
  ZSTD(4);

  /** zstd-jni's default level, Kafka's too ({@code ZstdCompression.DEFAULT_LEVEL}). */
  private static final int ZSTD_LEVEL = 3;
  private static final int GZIP_BUFFER = 8 * 1024;

  private final int code;

  Compression(int code) {
    this.code = code;
  }

  /** The value of the attributes' compression bits ({@link KafkaBatch#COMPRESSION_MASK}). */
  public int code() {
    return code;
  }

  /**
   * The codec with this attribute code.
   *
   * @throws CorruptBatchException for a code no codec has (5 to 7)
   */
  public static Compression ofCode(int code) {
    return switch (code) {
      case 0 -> NONE;
      case 1 -> GZIP;
      case 2 -> SNAPPY;
      case 3 -> LZ4;
      case 4 -> ZSTD;
      default -> throw new CorruptBatchException("corrupt batch: unknown compression code " + code);
    };
  }

  /** The codec Kafka names so ({@code compression.type}: none, gzip, snappy, lz4, zstd), or null. */
  public static Compression ofName(String name) {
    for (Compression c : values()) {
      if (c.name().equalsIgnoreCase(name)) {
        return c;
      }
    }
    return null;
  }

  /** A stream that compresses what is written to it into {@code out}; closing it finishes the data and closes {@code out}. */
  public OutputStream compress(OutputStream out) throws IOException {
    return switch (this) {
      case NONE -> out;
      case GZIP -> new GZIPOutputStream(out, GZIP_BUFFER);
      case SNAPPY -> new SnappyOutputStream(out);
      case LZ4 -> new LZ4FrameOutputStream(out, LZ4FrameOutputStream.BLOCKSIZE.SIZE_64KB,
          LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE);
      case ZSTD -> new ZstdOutputStreamNoFinalizer(out, RecyclingBufferPool.INSTANCE, ZSTD_LEVEL);
    };
  }

  /**
   * A stream of the decompressed bytes of {@code b[from, from + length)}. It reads whatever the data
   * says: a caller that must bound memory reads a bounded amount from it (as {@link BatchReader} does).
   * Close it: gzip and zstd hold native memory until then.
   */
  public InputStream decompress(byte[] b, int from, int length) throws IOException {
    InputStream in = new ByteArrayInputStream(b, from, length);
    return switch (this) {
      case NONE -> in;
      case GZIP -> new GZIPInputStream(in, GZIP_BUFFER);
      case SNAPPY -> new SnappyInputStream(in);
      case LZ4 -> new LZ4FrameInputStream(in);
      case ZSTD -> new ZstdInputStreamNoFinalizer(in, RecyclingBufferPool.INSTANCE);
    };
  }
}
