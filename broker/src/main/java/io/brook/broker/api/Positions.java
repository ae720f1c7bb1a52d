package io.brook.broker.api;

import io.brook.broker.topics.Partition;
import io.brook.protocol.v1.Boundary;
import io.brook.protocol.v1.Position;

/** Resolves a wire Position (offset, timestamp, earliest, latest) to an offset of a partition. */
final class Positions {
  private Positions() {}

  /**
   * @param whenUnset the offset used when no position is given
   * @throws io.brook.broker.errors.BrokerException OFFSET_OUT_OF_RANGE for an offset outside the log
   */
  static long resolve(Partition p, Position position, long whenUnset) {
    if (position == null) {
      return whenUnset;
    }
    return switch (position.getKindCase()) {
      case OFFSET -> {
        p.checkInRange(position.getOffset());
        yield position.getOffset();
      }
      case TIMESTAMP_MS -> p.offsetForTimestamp(position.getTimestampMs());
      case BOUNDARY -> position.getBoundary() == Boundary.BOUNDARY_EARLIEST ? p.startOffset()
          : position.getBoundary() == Boundary.BOUNDARY_LATEST ? p.endOffset() : whenUnset;
      case KIND_NOT_SET -> whenUnset;
    };
  }
}
