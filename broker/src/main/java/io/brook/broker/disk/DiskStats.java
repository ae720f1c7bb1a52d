package io.brook.broker.disk;

import java.util.Map;

/**
 * What the disk guard knows, for stats and metrics.
 *
 * @param freeBytes free space when last read, less what Brook appended since
 * @param produceThresholdBytes produce is refused below this
 * @param headroomBytes metadata writes are refused below this
 * @param activeWriters writers the threshold was sized for
 * @param refused refusals answered so far, by kind of write ({@link DiskWrite#label()})
 * @param transitions changes of state since start
 */
public record DiskStats(DiskState state, long freeBytes, long produceThresholdBytes, long headroomBytes,
    int activeWriters, Map<String, Long> refused, long transitions) {}
