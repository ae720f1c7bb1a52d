package io.brook.client.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.client.TopicPartition;
import java.util.List;
import org.junit.jupiter.api.Test;

class PartitionStatesTest {
  static final TopicPartition A = new TopicPartition("t", 0);
  static final TopicPartition B = new TopicPartition("t", 1);
  static final TopicPartition C = new TopicPartition("t", 2);

  @Test
  void eachPartitionGoesFirstInTurnSoNoneStarves() {
    PartitionStates s = new PartitionStates();
    s.assign(List.of(A, B, C));
    s.seek(A, 0);
    s.seek(B, 0);
    s.seek(C, 0);
    assertThat(s.fetchOrder()).containsExactly(A, B, C);
    assertThat(s.fetchOrder()).containsExactly(B, C, A);
    assertThat(s.fetchOrder()).containsExactly(C, A, B);
  }

  @Test
  void onlyPartitionsWithAKnownPositionAreFetchedOrCommitted() {
    PartitionStates s = new PartitionStates();
    s.assign(List.of(A, B));
    s.seek(A, 7);
    assertThat(s.withoutPosition()).containsExactly(B);
    assertThat(s.knownPositions()).containsOnlyKeys(A).containsEntry(A, 7L);
    assertThat(s.fetchOrder()).containsExactly(A);
  }

  @Test
  void reassigningKeepsThePositionsOfPartitionsKeptAndForgetsTheOthers() {
    PartitionStates s = new PartitionStates();
    s.assign(List.of(A, B));
    s.fetched(A, 10, 20);
    s.fetched(B, 5, 5);
    s.assign(List.of(A, C));
    assertThat(s.position(A)).isEqualTo(10);
    assertThat(s.endOffset(A)).isEqualTo(20);
    assertThat(s.isAssigned(B)).isFalse();
    assertThat(s.position(C)).isNull();
  }

  @Test
  void aSeekToAnEndForgetsThePositionUntilLookedUp() {
    PartitionStates s = new PartitionStates();
    s.assign(List.of(A));
    s.seek(A, 3);
    s.requestReset(A, OffsetResetStrategy.EARLIEST);
    assertThat(s.position(A)).isNull();
    assertThat(s.pendingReset(A)).isEqualTo(OffsetResetStrategy.EARLIEST);
    s.seek(A, 0);
    assertThat(s.pendingReset(A)).isNull();
  }

  @Test
  void aFetchAnsweredAfterThePartitionWentAwayChangesNothing() {
    PartitionStates s = new PartitionStates();
    s.assign(List.of(A));
    s.clear();
    s.fetched(A, 10, 10);
    assertThat(s.isAssigned(A)).isFalse();
  }
}
