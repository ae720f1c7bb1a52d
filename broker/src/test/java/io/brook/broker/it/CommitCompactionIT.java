package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.CommittedOffset;
import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.FetchCommittedOffsetsRequest;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.OffsetCommit;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Found by the crash harness (CrashIT): a commit whose journal append triggered a compaction was
 * missing from the snapshot (the group took the commit into memory only after the append), and the
 * compaction deleted the journal that held it. The commit was answered, yet after a restart the
 * committed offset was the one before it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CommitCompactionIT {
  @TempDir Path dir;

  static GroupServiceGrpc.GroupServiceBlockingStub groups(BrokerProcess broker) {
    return GroupServiceGrpc.newBlockingStub(broker.channel()).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  /** The journals of group g (journal-N directories), sorted. */
  static List<String> journals(BrokerProcess broker) throws IOException {
    try (Stream<Path> s = Files.list(broker.dataDir().resolve("groups/g"))) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  static long committed(BrokerProcess broker) {
    List<CommittedOffset> offsets = groups(broker).fetchCommittedOffsets(FetchCommittedOffsetsRequest.newBuilder()
        .setGroup("g").build()).getOffsetsList();
    assertThat(offsets).hasSize(1);
    return offsets.get(0).getOffset();
  }

  @Test
  void aCommitThatTriggersACompactionSurvivesARestart() throws Exception {
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set", "group.journal.compact.events=10")) {
      Wire wire = new Wire(broker.channel());
      wire.create("t", 1);
      wire.produceValues("t", 0, 100, "v");
      long offset = 0;
      List<String> before = List.of();
      while (offset < 100) { // commits from outside the group (no members): one journal event each
        offset++;
        ErrorCode code = groups(broker).commitOffsets(CommitOffsetsRequest.newBuilder().setGroup("g")
            .addOffsets(OffsetCommit.newBuilder().setTopic("t").setPartition(0).setOffset(offset)).build())
            .getResults(0).getErrorCode();
        assertThat(code).isEqualTo(ErrorCode.ERROR_CODE_UNSPECIFIED);
        List<String> now = journals(broker);
        if (!before.isEmpty() && !now.equals(before)) {
          break; // this commit's append compacted the journal
        }
        before = now;
      }
      assertThat(offset).as("a compaction happened").isLessThan(100);
      assertThat(committed(broker)).isEqualTo(offset);

      broker.kill9();
      broker.restart();
      assertThat(committed(broker)).as("the answered commit that triggered the compaction").isEqualTo(offset);
    }
  }
}
