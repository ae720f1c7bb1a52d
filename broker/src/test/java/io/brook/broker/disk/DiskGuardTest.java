package io.brook.broker.disk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The guard's state machine, on an injected free-space reading (no timer unless a test starts it). */
class DiskGuardTest {
  /** min 1000, headroom 400, 100 per writer: with up to 6 writers the threshold is 1000. */
  static final DiskLimits LIMITS = new DiskLimits(1000, 400, 100, 60_000);

  final AtomicLong free = new AtomicLong(10_000);
  final AtomicInteger writers = new AtomicInteger(1);
  final AtomicBoolean readFails = new AtomicBoolean();
  final List<String> transitions = new ArrayList<>();

  DiskGuard guard(DiskLimits limits) {
    FreeSpace space = () -> {
      if (readFails.get()) {
        throw new IOException("statvfs failed");
      }
      return free.get();
    };
    return new DiskGuard(space, limits, writers::get, (from, to, message) -> transitions.add(from + "->" + to
        + ": " + message), "/data");
  }

  DiskGuard at(long bytes, DiskGuard g) {
    free.set(bytes);
    g.poll();
    return g;
  }

  static BrokerError refusal(Runnable r) {
    try {
      r.run();
    } catch (BrokerException e) {
      return e.error();
    }
    return null;
  }

  @Test
  void everythingGoesOnAboveTheThreshold() {
    DiskGuard g = at(1000, guard(LIMITS));
    for (DiskWrite w : DiskWrite.values()) {
      assertThatCode(() -> g.check(w)).doesNotThrowAnyException();
    }
    assertThat(g.state()).isEqualTo(DiskState.OK);
    assertThat(g.metadataAllowed()).isTrue();
    assertThat(transitions).isEmpty();
  }

  @Test
  void underTheThresholdProduceIsRefusedAndMetadataGoesOn() {
    DiskGuard g = at(999, guard(LIMITS));
    assertThat(g.state()).isEqualTo(DiskState.PRODUCE_REFUSED);
    assertThatThrownBy(() -> g.check(DiskWrite.PRODUCE))
        .isInstanceOf(BrokerException.class)
        .satisfies(e -> assertThat(((BrokerException) e).error()).isEqualTo(BrokerError.NOT_ENOUGH_DISK))
        .hasMessageContaining("999 bytes")
        .hasMessageContaining("1000 bytes")
        .hasMessageContaining("disk.free.min.bytes")
        .hasMessageContaining("disk.free.per.writer.bytes");
    assertThat(refusal(() -> g.check(DiskWrite.TOPIC_CREATE))).isEqualTo(BrokerError.NOT_ENOUGH_DISK);
    for (DiskWrite w : List.of(DiskWrite.GROUP_COMMIT, DiskWrite.ACK, DiskWrite.DEAD_LETTER, DiskWrite.GROUP_CREATE,
        DiskWrite.GROUP_CONFIG, DiskWrite.GROUP_RESET)) {
      assertThatCode(() -> g.check(w)).as(w.label()).doesNotThrowAnyException();
    }
    assertThat(g.metadataAllowed()).isTrue();
    assertThat(g.stats().refused()).containsEntry("produce", 1L).containsEntry("topic_create", 1L)
        .containsEntry("group_commit", 0L);
  }

  @Test
  void oneTransitionPerChangeNotPerRequestOrRead() {
    DiskGuard g = at(900, guard(LIMITS));
    for (int i = 0; i < 100; i++) {
      refusal(() -> g.check(DiskWrite.PRODUCE));
      at(900 - i, g);
    }
    assertThat(transitions).hasSize(1);
    assertThat(transitions.get(0)).startsWith("OK->PRODUCE_REFUSED: Disk space low: ").contains("/data")
        .contains("disk.free.min.bytes");
    assertThat(g.stats().refused().get("produce")).isEqualTo(100L);
    at(5000, g);
    assertThat(transitions).hasSize(2);
    assertThat(transitions.get(1)).startsWith("PRODUCE_REFUSED->OK: Disk space back: ");
    assertThat(g.stats().transitions()).isEqualTo(2);
  }

  @Test
  void resumesOnlyASixteenthAboveTheLimit() {
    DiskGuard g = at(999, guard(LIMITS));
    at(1000, g);
    at(1061, g); // 1000 + 1000/16 = 1062
    assertThat(g.state()).isEqualTo(DiskState.PRODUCE_REFUSED);
    at(1062, g);
    assertThat(g.state()).isEqualTo(DiskState.OK);
    assertThat(transitions).hasSize(2);
  }

  @Test
  void underTheHeadroomMetadataIsRefusedTooAndComesBackFirst() {
    DiskGuard g = at(399, guard(LIMITS));
    assertThat(g.state()).isEqualTo(DiskState.FULL);
    assertThat(g.metadataAllowed()).isFalse();
    assertThatThrownBy(() -> g.check(DiskWrite.GROUP_COMMIT)).isInstanceOf(BrokerException.class)
        .hasMessageContaining("399 bytes").hasMessageContaining("disk.headroom.bytes").hasMessageContaining("400 bytes");
    assertThat(refusal(() -> g.check(DiskWrite.ACK))).isEqualTo(BrokerError.NOT_ENOUGH_DISK);
    assertThat(refusal(() -> g.check(DiskWrite.DEAD_LETTER))).isEqualTo(BrokerError.NOT_ENOUGH_DISK);
    assertThat(refusal(() -> g.check(DiskWrite.PRODUCE))).isEqualTo(BrokerError.NOT_ENOUGH_DISK);
    at(420, g); // under 400 + 400/16 = 425
    assertThat(g.state()).isEqualTo(DiskState.FULL);
    at(425, g);
    assertThat(g.state()).isEqualTo(DiskState.PRODUCE_REFUSED);
    assertThatCode(() -> g.check(DiskWrite.ACK)).doesNotThrowAnyException();
    assertThat(refusal(() -> g.check(DiskWrite.PRODUCE))).isEqualTo(BrokerError.NOT_ENOUGH_DISK);
    at(399, g);
    at(2000, g); // straight back to OK
    assertThat(transitions).extracting(t -> t.substring(0, t.indexOf(':')))
        .containsExactly("OK->FULL", "FULL->PRODUCE_REFUSED", "PRODUCE_REFUSED->FULL", "FULL->OK");
    assertThat(transitions.get(0)).contains("Disk almost full");
  }

  @Test
  void theThresholdCoversEveryActiveWriter() {
    DiskGuard g = guard(LIMITS);
    writers.set(20); // 400 + 20 x 100 = 2400 > 1000
    at(2399, g);
    assertThat(g.state()).isEqualTo(DiskState.PRODUCE_REFUSED);
    assertThat(g.stats().produceThresholdBytes()).isEqualTo(2400);
    assertThat(g.stats().activeWriters()).isEqualTo(20);
    assertThat(LIMITS.produceThreshold(0)).isEqualTo(1000); // at least one writer; the minimum wins
    assertThat(new DiskLimits(0, 400, 100, 1).produceThreshold(0)).isEqualTo(500);
  }

  @Test
  void theThresholdDoesNotFallWhileProduceIsRefused() {
    // Refused produce means no partition appends, so the active writers decay: produce must not
    // resume into the room it was refused for.
    DiskGuard g = guard(LIMITS);
    writers.set(20);
    at(2000, g);
    writers.set(1);
    at(2000, g);
    assertThat(g.state()).isEqualTo(DiskState.PRODUCE_REFUSED);
    assertThat(g.stats().produceThresholdBytes()).isEqualTo(2400);
    at(2550, g); // 2400 + 150
    assertThat(g.state()).isEqualTo(DiskState.OK);
    at(2550, g);
    assertThat(g.stats().produceThresholdBytes()).isEqualTo(1000);
  }

  @Test
  void bytesWrittenBetweenReadsCountAtOnce() {
    DiskGuard g = at(1500, guard(LIMITS));
    g.wrote(400);
    assertThat(g.state()).isEqualTo(DiskState.OK); // 1100 left
    g.wrote(200);
    assertThat(g.state()).as("900 left by the estimate, before any read").isEqualTo(DiskState.PRODUCE_REFUSED);
    assertThat(g.stats().freeBytes()).isEqualTo(900);
    g.wrote(600);
    assertThat(g.state()).isEqualTo(DiskState.FULL);
    at(900, g); // the read replaces the estimate: the bytes are on the disk now
    assertThat(g.state()).isEqualTo(DiskState.PRODUCE_REFUSED);
    assertThat(g.stats().freeBytes()).isEqualTo(900);
  }

  @Test
  void aFailedReadKeepsTheStateAndTheTimerGoingOn() {
    DiskGuard g = at(900, guard(LIMITS));
    readFails.set(true);
    free.set(5000);
    g.poll();
    g.poll();
    assertThat(g.state()).isEqualTo(DiskState.PRODUCE_REFUSED);
    readFails.set(false);
    g.poll();
    assertThat(g.state()).isEqualTo(DiskState.OK);
  }

  @Test
  void zeroLimitsTurnTheGuardOff() {
    DiskGuard g = at(0, guard(new DiskLimits(0, 0, 0, 1000)));
    assertThat(g.state()).isEqualTo(DiskState.OK);
    assertThatCode(() -> g.check(DiskWrite.PRODUCE)).doesNotThrowAnyException();
  }

  /** A threshold and the formula that explains it, as the guard writes them for people. */
  static final String SIZE = "(\\d+(?:\\.\\d)? (?:B|KiB|MiB|GiB))";
  static final Pattern FORMULA = Pattern.compile(SIZE + " = max\\(disk\\.free\\.min\\.bytes " + SIZE
      + ", disk\\.headroom\\.bytes " + SIZE + " \\+ (\\d+) active writer\\(s\\) x disk\\.free\\.per\\.writer\\.bytes "
      + SIZE + "\\)");

  @Test
  void everyThresholdPrintedAddsUpToTheFormulaPrintedBesideIt() {
    // The issue's figures: 8 MiB headroom and per writer; 7 writers made the threshold 64 MiB, then
    // one went idle while produce was refused (the threshold is kept, the count falls to 6).
    long mib = 1 << 20;
    free.set(100 * mib);
    writers.set(7);
    DiskGuard g = guard(new DiskLimits(16 * mib, 8 * mib, 8 * mib, 60_000));
    List<String> lines = new ArrayList<>();
    lines.add(g.summary());
    at(60 * mib, g); // Disk space low
    lines.add(produceRefusal(g));
    writers.set(6);
    at(60 * mib, g);
    lines.add(produceRefusal(g));
    at(4 * mib, g); // Disk almost full
    at(60 * mib, g); // back above the headroom
    at(70 * mib, g); // Disk space back: 70 >= 64 + 4
    lines.add(g.summary());
    assertThat(g.state()).isEqualTo(DiskState.OK);
    lines.addAll(transitions);

    int formulas = 0;
    for (String line : lines) {
      Matcher m = FORMULA.matcher(line);
      while (m.find()) {
        formulas++;
        long formula = Math.max(bytes(m.group(2)), bytes(m.group(3)) + Long.parseLong(m.group(4)) * bytes(m.group(5)));
        assertThat(bytes(m.group(1))).as("the figure of %s in:%n%s", m.group(), line).isEqualTo(formula);
      }
    }
    // summary x2, two refusals, Disk space low, back above the headroom, Disk space back
    assertThat(formulas).as("thresholds explained in:%n%s", String.join("\n", lines)).isEqualTo(7);
    assertThat(transitions.get(transitions.size() - 1)).startsWith("PRODUCE_REFUSED->OK: Disk space back: ")
        .contains("64.0 MiB = max(");
  }

  static String produceRefusal(DiskGuard g) {
    try {
      g.check(DiskWrite.PRODUCE);
    } catch (BrokerException e) {
      return e.getMessage();
    }
    throw new AssertionError("produce was not refused in state " + g.state());
  }

  /** "64.0 MiB" as bytes (the test's figures are whole units). */
  static long bytes(String human) {
    String[] f = human.split(" ");
    int shift = switch (f[1]) {
      case "B" -> 0;
      case "KiB" -> 10;
      case "MiB" -> 20;
      default -> 30;
    };
    return Math.round(Double.parseDouble(f[0]) * (1L << shift));
  }

  @Test
  void theFirstReadingCountsOneWriterWithoutAskingTheCensusWhichIsAskedFromTheFirstPollOn() {
    // A broker builds its guard before the partitions and groups the census counts exist.
    AtomicInteger asked = new AtomicInteger();
    free.set(1050); // above the threshold of one writer (1000), under that of seven (1100)
    DiskGuard g = new DiskGuard(free::get, LIMITS, () -> {
      asked.incrementAndGet();
      return 7;
    }, (from, to, message) -> transitions.add(from + "->" + to), "/data");

    assertThat(asked).as("the census is not asked while the guard is built").hasValue(0);
    assertThat(g.state()).isEqualTo(DiskState.OK);

    g.poll();
    assertThat(asked).hasValue(1);
    assertThat(g.state()).as("seven writers need 1100 bytes").isEqualTo(DiskState.PRODUCE_REFUSED);
  }

  @Test
  void limitsSaturateInsteadOfOverflowing() {
    DiskLimits huge = new DiskLimits(0, Long.MAX_VALUE - 5, Long.MAX_VALUE / 2, 1);
    assertThat(huge.produceThreshold(10)).isEqualTo(Long.MAX_VALUE);
    assertThat(DiskLimits.resumeAt(Long.MAX_VALUE)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void theTimerResumesProduceByItself() throws Exception {
    DiskGuard g = at(900, guard(new DiskLimits(1000, 400, 100, 10)));
    try {
      g.start();
      free.set(5000);
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (g.state() != DiskState.OK && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(g.state()).isEqualTo(DiskState.OK);
      free.set(100);
      while (g.state() != DiskState.FULL && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(g.state()).isEqualTo(DiskState.FULL);
    } finally {
      g.close();
    }
  }
}
