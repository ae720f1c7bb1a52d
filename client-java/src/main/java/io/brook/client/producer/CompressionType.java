package io.brook.client.producer;

import io.brook.protocol.batch.Compression;

/** How a producer compresses its batches (Kafka's {@code compression.type}, same names and codecs). */
public enum CompressionType {
  NONE(Compression.NONE),
  GZIP(Compression.GZIP),
  SNAPPY(Compression.SNAPPY),
  LZ4(Compression.LZ4),
  ZSTD(Compression.ZSTD);

  private final Compression codec;

  CompressionType(Compression codec) {
    this.codec = codec;
  }

  Compression codec() {
    return codec;
  }

  /** The codec of this name, as Kafka spells it ({@code none}, {@code gzip}, {@code snappy}, {@code lz4}, {@code zstd}), any case. */
  public static CompressionType of(String name) {
    for (CompressionType c : values()) {
      if (c.name().equalsIgnoreCase(name)) {
        return c;
      }
    }
    throw new IllegalArgumentException("unknown compression " + name + "; one of none, gzip, snappy, lz4, zstd");
  }
}
