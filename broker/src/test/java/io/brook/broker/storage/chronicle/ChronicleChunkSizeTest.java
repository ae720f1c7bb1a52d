package io.brook.broker.storage.chronicle;

import io.brook.broker.storage.AppendBatch;
import io.brook.broker.storage.LogOptions;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.records.LogRecord;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.config.BrokerKeys;
import java.io.File;
import java.nio.file.Path;
import java.util.List;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Chronicle facts the disk guard's default sizes rest on (D19): every roll Brook uses maps its
 * files in 64 MiB chunks, and a segment file, sparse, spans a chunk plus Chronicle's overlap of a
 * quarter chunk from its first append. If Chronicle changes them, the defaults must be revisited.
 */
class ChronicleChunkSizeTest {
  static final long CHUNK = 64L << 20;
  @TempDir Path dir;

  @Test
  void everyRollMapsInChunksOfTheSizeThePerWriterDefaultKeeps() {
    for (SegmentRoll roll : SegmentRoll.values()) {
      long blockSize = SingleChronicleQueueBuilder.binary(dir.resolve(roll.label())).rollCycle(ChronicleRolls.of(roll))
          .blockSize();
      assertThat(blockSize).as(roll.label()).isEqualTo(CHUNK);
    }
    assertThat(Long.parseLong(BrokerKeys.DISK_FREE_PER_WRITER_BYTES.defaultText())).isEqualTo(CHUNK);
    assertThat(Long.parseLong(BrokerKeys.DISK_HEADROOM_BYTES.defaultText())).isEqualTo(CHUNK);
  }

  @Test
  void aSegmentFileSpansAChunkAndItsOverlapFromItsFirstAppend() {
    try (ChronicleLog log = ChronicleLog.open(dir, LogOptions.defaults())) {
      log.append(AppendBatch.of(List.of(LogRecord.of(null, new byte[100], -1, List.of())), System.currentTimeMillis()));
      File[] segments = dir.toFile().listFiles((d, name) -> name.endsWith(".cq4"));
      assertThat(segments).hasSize(1);
      assertThat(segments[0].length()).isEqualTo(CHUNK + CHUNK / 4);
    }
  }
}
