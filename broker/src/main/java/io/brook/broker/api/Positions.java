package io.brook.broker.api;

import io.brook.broker.core.Position;
import io.brook.protocol.v1.Boundary;

/** A wire Position (offset, timestamp, earliest, latest) as the core's; null when it names none. */
final class Positions {
  private Positions() {}

  static Position toCore(io.brook.protocol.v1.Position position) {
    if (position == null) {
      return null;
    }
    return switch (position.getKindCase()) {
      case OFFSET -> new Position.Offset(position.getOffset());
      case TIMESTAMP_MS -> new Position.Timestamp(position.getTimestampMs());
      case BOUNDARY -> position.getBoundary() == Boundary.BOUNDARY_EARLIEST ? new Position.Earliest()
          : position.getBoundary() == Boundary.BOUNDARY_LATEST ? new Position.Latest() : null;
      case KIND_NOT_SET -> null;
    };
  }
}
