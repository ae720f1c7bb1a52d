package io.brook.broker.storage;

import java.nio.file.Path;

/**
 * Opens partition logs. The broker passes {@code ChronicleLog::open} (storage.chronicle); fast tests of
 * the layers above pass the tests' {@code MemoryLog::open}. Storage names no engine here, so it
 * depends on none.
 */
@FunctionalInterface
public interface LogFactory {
  PartitionLog open(Path dir, LogOptions options);
}
