package io.brook.broker.storage.chronicle;

import java.io.File;

/**
 * One segment of the log: a Chronicle cycle and the file that holds it, with what its first batch
 * says (its base offset, the running max timestamp and the log position there).
 */
record Segment(int cycle, long firstOffset, long firstRunningMax, long firstLogPosition, File file) {}
