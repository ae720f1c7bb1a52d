package io.brook.broker.disk;

/**
 * The produce threshold together with the count of writers it was computed for. The guard keeps
 * the threshold while produce is refused, as the count of active writers falls; a line that printed
 * the kept figure beside the current count explained it with a sum that did not add up. Every figure
 * and its formula are therefore rendered from this one value.
 *
 * @param writers the writers counted (at least one), not necessarily the writers active now
 */
record ProduceThreshold(long bytes, int writers, DiskLimits limits) {
  static ProduceThreshold of(DiskLimits limits, int activeWriters) {
    int counted = Math.max(1, activeWriters);
    return new ProduceThreshold(limits.produceThreshold(counted), counted, limits);
  }

  /** The larger of the two, for a threshold that must not fall. */
  ProduceThreshold atLeast(ProduceThreshold other) {
    return other.bytes > bytes ? other : this;
  }

  /** "max(disk.free.min.bytes 16.0 MiB, disk.headroom.bytes 8.0 MiB + 7 active writer(s) x ...)". */
  String formula() {
    return "max(disk.free.min.bytes " + ByteSize.human(limits.minFreeBytes()) + ", disk.headroom.bytes "
        + ByteSize.human(limits.headroomBytes()) + " + " + writers + " active writer(s) x disk.free.per.writer.bytes "
        + ByteSize.human(limits.perWriterBytes()) + ")";
  }

  /** "64.0 MiB = max(...)": the figure and the formula it comes from. */
  String explained() {
    return ByteSize.human(bytes) + " = " + formula();
  }
}
