package io.brook.broker.core;

import java.util.List;

/** The committed offsets asked for on one topic: these partitions, or (empty) every one committed. */
public record OffsetQuery(String topic, List<Integer> partitions) {}
