package io.brook.client.consumer;

import io.brook.client.TopicPartition;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A commit: the next offset to read, with text the group keeps beside it (Kafka's
 * OffsetAndMetadata), for example where an external store stands or who committed. {@link
 * BrookConsumer#committed} and {@link io.brook.client.admin.BrookAdmin#listGroupOffsets} read it
 * back. The broker refuses metadata longer than 4096 bytes (UTF-8) with {@code INVALID_REQUEST}.
 *
 * @param offset the next offset to read, {@code >= 0}
 * @param metadata free text; null is taken as empty
 */
public record OffsetAndMetadata(long offset, String metadata) {
  public OffsetAndMetadata {
    if (offset < 0) {
      throw new IllegalArgumentException("offset must be >= 0, got " + offset);
    }
    metadata = metadata == null ? "" : metadata;
  }

  /** An offset without metadata. */
  public OffsetAndMetadata(long offset) {
    this(offset, "");
  }

  /** Positions as commits without metadata, in their order. */
  static Map<TopicPartition, OffsetAndMetadata> of(Map<TopicPartition, Long> offsets) {
    Map<TopicPartition, OffsetAndMetadata> out = new LinkedHashMap<>();
    offsets.forEach((tp, offset) -> out.put(tp, new OffsetAndMetadata(offset)));
    return out;
  }
}
