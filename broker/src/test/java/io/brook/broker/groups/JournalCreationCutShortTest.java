package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.storage.LogOptions;
import io.brook.broker.storage.chronicle.ChronicleLog;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Found by the crash harness (CrashIT): a kill while a compaction created journal-(N+1) left its
 * Chronicle metadata.cq4t with the header still marked incomplete. Opening that queue waited ~10 s
 * and threw, so the broker could not start at all. The compaction never wrote a snapshot there: the
 * older journal is whole and must win, as for any compaction cut short.
 */
class JournalCreationCutShortTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aJournalWhoseQueueCreationWasCutShortIsDroppedAndTheBrokerStarts() throws Exception {
    JournalEvent.Config config = new JournalEvent.Config(GroupMode.OFFSET, Map.of("auto.offset.reset", "earliest"));
    try (GroupJournal j = GroupJournal.create(dir, ChronicleLog::open, InstantSource.system(), 1000,
        List.of(config))) {
      j.append(new JournalEvent.Commit(0, 5, 0, ""));
    }
    Path next = dir.resolve("journal-2");
    ChronicleLog.open(next, LogOptions.defaults()).close(); // the queue's files, as Chronicle creates them
    try (FileChannel ch = FileChannel.open(next.resolve("metadata.cq4t"), StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {0, 0, 0, (byte) 0x80}), 0); // its header, still "not complete"
    }

    long started = System.nanoTime();
    GroupJournal.Opened o = GroupJournal.open(dir, ChronicleLog::open, InstantSource.system(), 1000);
    o.journal().close();

    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started)).isLessThan(5);
    assertThat(o.events()).contains(new JournalEvent.Commit(0, 5, 0, ""));
    try (Stream<Path> s = Files.list(dir)) {
      assertThat(s.map(p -> p.getFileName().toString())).containsExactly("journal-1");
    }
  }
}
