package io.brook.broker.groups;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.storage.chronicle.ChronicleLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal on Chronicle: replay, compaction into a snapshot, and an interrupted compaction. */
class GroupJournalTest {
  @TempDir Path dir;
  final InstantSource clock = InstantSource.system();

  static JournalEvent.Config config() {
    return new JournalEvent.Config(GroupMode.OFFSET, Map.of("auto.offset.reset", "earliest"));
  }

  List<String> journals() throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void eventsReplayInOrderAfterReopening() {
    UUID id = UUID.randomUUID();
    try (GroupJournal j = GroupJournal.create(dir, ChronicleLog::open, clock, 1000, List.of(config()))) {
      j.append(List.of(new JournalEvent.PartitionKey(0, "t", id, 3), new JournalEvent.Commit(0, 42, 7, "meta")));
      j.append(new JournalEvent.Delivered(0, new long[] {1, 5, 9, 9}));
      j.append(new JournalEvent.Undelivered(0, new long[] {4, 5}));
    }
    GroupJournal.Opened o = GroupJournal.open(dir, ChronicleLog::open, clock, 1000);
    o.journal().close();
    assertThat(o.events()).hasSize(6);
    assertThat(o.events().get(0)).isEqualTo(config());
    assertThat(o.events().get(1)).isInstanceOf(JournalEvent.SnapshotEnd.class);
    assertThat(o.events().get(2)).isEqualTo(new JournalEvent.PartitionKey(0, "t", id, 3));
    assertThat(o.events().get(3)).isEqualTo(new JournalEvent.Commit(0, 42, 7, "meta"));
    assertThat(((JournalEvent.Delivered) o.events().get(4)).ranges()).containsExactly(1, 5, 9, 9);
    assertThat(((JournalEvent.Undelivered) o.events().get(5)).ranges()).containsExactly(4, 5);
  }

  @Test
  void compactionReplacesTheJournalWithASnapshot() throws Exception {
    GroupJournal j = GroupJournal.create(dir, ChronicleLog::open, clock, 10, List.of(config()));
    for (int i = 0; i < 10; i++) {
      j.append(new JournalEvent.Commit(0, i, 0, ""));
    }
    assertThat(j.needsCompaction()).isTrue();
    j.compact(List.of(config(), new JournalEvent.Commit(0, 9, 0, "")));
    assertThat(j.needsCompaction()).isFalse();
    assertThat(journals()).containsExactly("journal-2");
    j.append(new JournalEvent.Generation(4));
    j.close();
    GroupJournal.Opened o = GroupJournal.open(dir, ChronicleLog::open, clock, 10);
    o.journal().close();
    assertThat(o.events()).containsExactly(config(), new JournalEvent.Commit(0, 9, 0, ""),
        new JournalEvent.SnapshotEnd(), new JournalEvent.Generation(4));
  }

  @Test
  void aCompactionCutShortIsDroppedAndTheOlderJournalWins() throws Exception {
    try (GroupJournal j = GroupJournal.create(dir, ChronicleLog::open, clock, 1000, List.of(config()))) {
      j.append(new JournalEvent.Commit(0, 5, 0, ""));
    }
    // journal-2 with a snapshot and no SnapshotEnd: what a crash in the middle of compact() leaves.
    Path partial = dir.resolve("journal-2");
    try (var log = ChronicleLog.open(partial, io.brook.broker.storage.LogOptions.defaults())) {
      log.append(io.brook.broker.storage.AppendBatch.of(List.of(io.brook.broker.records.LogRecord.of(null,
          JournalEvent.encode(config()), -1, List.of())), 0));
    }
    GroupJournal.Opened o = GroupJournal.open(dir, ChronicleLog::open, clock, 1000);
    o.journal().close();
    assertThat(o.events()).contains(new JournalEvent.Commit(0, 5, 0, ""));
    assertThat(journals()).containsExactly("journal-1");
  }

  @Test
  void aDirectoryWithoutACompleteJournalOpensAsNothing() throws Exception {
    Files.createDirectories(dir.resolve("journal-1"));
    assertThat(GroupJournal.open(dir, ChronicleLog::open, clock, 1000)).isNull();
  }
}
