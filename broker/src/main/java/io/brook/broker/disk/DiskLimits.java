package io.brook.broker.disk;

/**
 * The free-space limits of the data directory's filesystem (see DECISIONS.md, D19).
 *
 * <p>produce threshold = max(minFreeBytes, headroomBytes + active writers × perWriterBytes), with
 * at least one writer counted. Every log is a sparse, memory-mapped file that a writer extends by
 * touching pages of its current chunk (64 MiB in Chronicle), and touching a page the filesystem
 * cannot back kills the JVM with SIGBUS; so each writer that may be appending keeps a chunk of
 * room, and the headroom below that stays for the metadata writes that let consumers drain.
 *
 * @param minFreeBytes the least the produce threshold is ({@code disk.free.min.bytes})
 * @param headroomBytes kept for metadata writes; under it every growing write is refused
 *     ({@code disk.headroom.bytes})
 * @param perWriterBytes room for each active writer ({@code disk.free.per.writer.bytes})
 * @param checkIntervalMs how often free space is read ({@code disk.check.interval.ms})
 */
public record DiskLimits(long minFreeBytes, long headroomBytes, long perWriterBytes, long checkIntervalMs) {
  public DiskLimits {
    if (minFreeBytes < 0 || headroomBytes < 0 || perWriterBytes < 0 || checkIntervalMs < 1) {
      throw new IllegalArgumentException("disk limits must be >= 0 and the interval >= 1 ms");
    }
  }

  /** Below this much free space produce is refused. */
  public long produceThreshold(int activeWriters) {
    long writers = Math.max(1, activeWriters);
    long room = perWriterBytes > 0 && writers > Long.MAX_VALUE / perWriterBytes ? Long.MAX_VALUE
        : writers * perWriterBytes;
    long needed = room > Long.MAX_VALUE - headroomBytes ? Long.MAX_VALUE : headroomBytes + room;
    return Math.max(minFreeBytes, needed);
  }

  /**
   * Free space at which a refused state ends: the limit plus 1/16 of it, so a filesystem hovering
   * at the limit does not flip produce on and off with every few pages written or freed.
   */
  static long resumeAt(long limit) {
    long margin = limit / 16;
    return limit > Long.MAX_VALUE - margin ? Long.MAX_VALUE : limit + margin;
  }
}
