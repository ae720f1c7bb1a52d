package io.brook.broker.producers;

import static io.brook.broker.producers.ProducerStateTest.assertRefused;
import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.errors.BrokerError;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Producer ids on a real data directory: owners, epochs and their expiry, across reloads. */
class ProducerIdsTest {
  static final long HOUR = 3_600_000;
  static final long EXPIRATION = 24 * HOUR;

  @TempDir Path dir;

  @Test
  void aPrincipalsIdsAreItsOwnAcrossARestart() {
    ProducerIds ids = new ProducerIds(dir);
    long alices = ids.allocate("alice", 0);
    long bobs = ids.allocate("bob", 0);
    long alicesSecond = ids.allocate("alice", 0);
    assertThat(alicesSecond).isNotIn(alices, bobs);

    ProducerIds reloaded = new ProducerIds(dir); // as after kill -9: nothing but the file
    reloaded.checkOwner(alices, "alice");
    reloaded.checkOwner(alicesSecond, "alice");
    assertRefused(() -> reloaded.checkOwner(alices, "bob"), BrokerError.NOT_OWNER,
        "principal bob may not act as producer id " + alices);
    assertRefused(() -> reloaded.bump(bobs, "alice", 0), BrokerError.NOT_OWNER, "producer id " + bobs);
    assertRefused(() -> reloaded.checkCurrent(bobs, 0, 0, "alice", 0), BrokerError.NOT_OWNER, "producer id " + bobs);
    assertThat(reloaded.bump(alices, "alice", 0)).isEqualTo((short) 1);
    assertThat(reloaded.allocate("alice", 0)).as("never an id handed out before")
        .isGreaterThan(Math.max(alicesSecond, bobs));
  }

  @Test
  void withoutAPrincipalNothingIsOwned() {
    ProducerIds ids = new ProducerIds(dir);
    long alices = ids.allocate("alice", 0);
    long open = ids.allocate(null, 0);
    ids.checkOwner(alices, null); // auth off: no caller, no check
    assertThat(ids.bump(open, null, 0)).isEqualTo((short) 1);
    ids.checkOwner(open, "bob");
  }

  @Test
  void anIdWithoutAnOwnerBelongsToThePrincipalThatBumpsItFirst() {
    ProducerIds ids = new ProducerIds(dir);
    long id = ids.allocate(null, 0);
    ids.checkCurrent(id, 0, 0, "alice", 0);
    assertThat(ids.bump(id, "bob", 0)).isEqualTo((short) 1);
    assertRefused(() -> new ProducerIds(dir).bump(id, "alice", 0), BrokerError.NOT_OWNER, "producer id " + id);
  }

  @Test
  void aFileOfAnEarlierVersionReadsAsIdsWithoutOwners() throws Exception {
    Files.writeString(dir.resolve("producer-ids.properties"), "reserved.up.to=1001\nepoch.5=2,1000\n");
    ProducerIds ids = new ProducerIds(dir);
    ids.checkCurrent(5, 2, 0, "alice", 2000);
    ids.checkCurrent(7, 0, 0, "bob", 2000);
    assertThat(ids.allocate("alice", 2000)).isGreaterThanOrEqualTo(1001);
    assertThat(ids.bump(5, "bob", 2000)).isEqualTo((short) 3);
    assertRefused(() -> ids.checkOwner(5, "alice"), BrokerError.NOT_OWNER, "producer id 5");
  }

  /** A reservation that could not be written hands nothing out: the next one is written first. */
  @Test
  void anIdIsNeverHandedOutTwiceWhenItsReservationCouldNotBeWritten() throws Exception {
    Path tmp = Files.createDirectory(dir.resolve("producer-ids.properties.tmp")); // the write fails
    ProducerIds ids = new ProducerIds(dir);
    assertRefused(() -> ids.allocate(null, 0), BrokerError.STORAGE_ERROR, "cannot write");
    assertRefused(() -> ids.allocate("alice", 0), BrokerError.STORAGE_ERROR, "cannot write");
    Files.delete(tmp);
    long open = ids.allocate(null, 0);
    long alices = ids.allocate("alice", 0);
    ProducerIds reloaded = new ProducerIds(dir); // as after kill -9
    assertThat(reloaded.allocate(null, 0)).isNotIn(open, alices);
    assertThat(reloaded.allocate("alice", 0)).isNotIn(open, alices);
    assertRefused(() -> reloaded.checkOwner(alices, "bob"), BrokerError.NOT_OWNER, "producer id " + alices);
  }

  /**
   * A bump that could not be written is not taken: the epoch stays where the file has it, so the
   * retry is checked as the first try was and a restart finds the same epoch (InitProducer's bump
   * and a producer's own bump at sequence 0 alike).
   */
  @Test
  void aBumpThatCouldNotBeWrittenLeavesTheEpochAsItWas() throws Exception {
    ProducerIds ids = new ProducerIds(dir);
    long id = ids.allocate("alice", 0);
    Path tmp = Files.createDirectory(dir.resolve("producer-ids.properties.tmp")); // the write fails
    assertRefused(() -> ids.checkCurrent(id, 1, 0, "alice", 0), BrokerError.STORAGE_ERROR, "cannot write");
    assertRefused(() -> ids.bump(id, "alice", 0), BrokerError.STORAGE_ERROR, "cannot write");
    ids.checkCurrent(id, 0, 7, "alice", 0); // still epoch 0, mid-sequence
    assertRefused(() -> ids.checkCurrent(id, 1, 3, "alice", 0), BrokerError.UNKNOWN_PRODUCER_ID, "has no epoch 1");
    Files.delete(tmp);
    ids.checkCurrent(id, 1, 0, "alice", 0); // the retry, written now
    new ProducerIds(dir).checkCurrent(id, 1, 4, "alice", 0); // as after kill -9
  }

  /** Expiry counts from the last use, not from the bump: an active producer keeps its epoch and owner. */
  @Test
  void aProducerInUseKeepsItsEpochAndOwnerPastTheExpiration() {
    ProducerIds ids = new ProducerIds(dir);
    long id = ids.allocate("alice", 0);
    assertThat(ids.bump(id, "alice", 0)).isEqualTo((short) 1);
    ids.checkCurrent(id, 1, 0, "alice", 23 * HOUR);
    assertThat(ids.expire(25 * HOUR - EXPIRATION)).isZero();

    ProducerIds reloaded = new ProducerIds(dir); // the last use was written by the expiry pass
    assertThat(reloaded.expire(25 * HOUR - EXPIRATION)).isZero();
    reloaded.checkCurrent(id, 1, 0, "alice", 25 * HOUR);
    assertRefused(() -> reloaded.checkOwner(id, "bob"), BrokerError.NOT_OWNER, "producer id " + id);

    assertThat(reloaded.expire(50 * HOUR - EXPIRATION)).as("its epoch and its block").isEqualTo(2);
    reloaded.checkOwner(id, "bob"); // idle past the expiration: forgotten, as its partitions' state is
    assertRefused(() -> reloaded.checkCurrent(id, 1, 5, "alice", 50 * HOUR), BrokerError.UNKNOWN_PRODUCER_ID,
        "has no epoch 1");
  }

  /**
   * KIP-360: a producer may start a later epoch itself, at sequence 0 (kafka-clients does after a batch
   * expired with its outcome unknown). It becomes the current epoch, kept across a restart, and fences
   * the older ones; a later epoch in mid-sequence is still unknown, and another principal's id still refused.
   */
  @Test
  void aLaterEpochAtSequenceZeroIsTheProducersOwnBumpAndFencesTheOlderOnes() {
    ProducerIds ids = new ProducerIds(dir);
    long id = ids.allocate("alice", 0);
    assertRefused(() -> ids.checkCurrent(id, 1, 3, "alice", 0), BrokerError.UNKNOWN_PRODUCER_ID,
        "has no epoch 1 (the current one is 0)");
    assertRefused(() -> ids.checkCurrent(id, 1, 0, "bob", 0), BrokerError.NOT_OWNER, "producer id " + id);
    ids.checkCurrent(id, 0, 7, "alice", 0);
    ids.checkCurrent(id, 1, 0, "alice", 0);
    ids.checkCurrent(id, 1, 8, "alice", 0);

    ProducerIds reloaded = new ProducerIds(dir); // as after kill -9
    assertRefused(() -> reloaded.checkCurrent(id, 0, 9, "alice", 0), BrokerError.PRODUCER_FENCED,
        "epoch 0 is fenced: the current epoch is 1");
    reloaded.checkCurrent(id, 1, 9, "alice", 0);
    assertThat(reloaded.bump(id, "alice", 0)).as("InitProducer goes on from the producer's own bump").isEqualTo((short) 2);
  }
}
