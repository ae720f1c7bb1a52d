package io.brook.broker.storage;

import java.nio.file.Path;

/** Opens partition logs: Chronicle in the broker, memory in fast tests of the layers above. */
@FunctionalInterface
public interface LogFactory {
  PartitionLog open(Path dir, LogOptions options);

  LogFactory CHRONICLE = ChronicleLog::open;
  LogFactory MEMORY = (dir, options) -> new MemoryLog(options);
}
