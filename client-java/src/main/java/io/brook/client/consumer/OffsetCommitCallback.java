package io.brook.client.consumer;

import io.brook.client.TopicPartition;
import io.brook.client.errors.BrookException;
import java.util.Map;

/** Told how a {@link BrookConsumer#commitAsync} ended; runs on the polling thread, inside a later call. */
@FunctionalInterface
public interface OffsetCommitCallback {
  /** {@code exception} is null when the offsets were stored. */
  void onComplete(Map<TopicPartition, OffsetAndMetadata> offsets, BrookException exception);
}
