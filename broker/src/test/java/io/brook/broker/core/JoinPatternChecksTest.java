package io.brook.broker.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.disk.DiskGuard;
import io.brook.broker.disk.DiskLimits;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.groups.GroupContext;
import io.brook.broker.groups.GroupManager;
import io.brook.broker.groups.JoinRequest;
import io.brook.broker.groups.TopicPatterns;
import io.brook.broker.storage.MemoryLog;
import io.brook.broker.storage.SegmentRoll;
import io.brook.broker.topics.TopicConfig;
import io.brook.broker.topics.TopicManager;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The group service's checks of a JoinGroup's topic_pattern: INVALID_REQUEST saying what was wrong. */
class JoinPatternChecksTest {
  @TempDir Path dir;
  TopicManager topics;
  GroupManager manager;
  GroupService groups;

  @BeforeEach
  void setUp() {
    topics = new TopicManager(dir, TopicConfig.defaults(-1, -1, SegmentRoll.HOUR, 1 << 20), 1, MemoryLog::open,
        InstantSource.system());
    topics.recover();
    topics.create("a1", 1, Map.of());
    topics.create("b", 1, Map.of());
    DiskGuard disk = new DiskGuard(() -> Long.MAX_VALUE, new DiskLimits(0, 0, 0, 60_000), () -> 0,
        (from, to, message) -> { }, dir.toString());
    manager = new GroupManager(dir, new GroupContext(topics, InstantSource.system(), Runnable::run, 1000, 60_000,
        3000, disk), MemoryLog::open, 100_000);
    manager.recover();
    groups = new GroupService(manager, 1000, 60_000);
  }

  @AfterEach
  void tearDown() {
    manager.close();
    topics.close();
  }

  static JoinRequest join(List<String> topics, String pattern) {
    return new JoinRequest("", "c", "127.0.0.1", topics, 0, 0, null, "", pattern, false, List.of());
  }

  static void refused(Runnable call, String message) {
    assertThatThrownBy(call::run).isInstanceOf(BrokerException.class).hasMessage(message)
        .extracting(e -> ((BrokerException) e).error()).isEqualTo(BrokerError.INVALID_REQUEST);
  }

  @Test
  void aPatternThatDoesNotCompileIsRefusedSayingWhy() {
    refused(() -> groups.join("g", join(List.of(), "a(")),
        "topic_pattern 'a(' is not a valid (Java) regular expression: Unclosed group near index 2");
  }

  @Test
  void topicsAndAPatternTogetherAreRefused() {
    refused(() -> groups.join("g", join(List.of("a1"), "a.*")),
        "JoinGroup names both topics and a topic_pattern: set one, not both");
  }

  @Test
  void aPatternLongerThanTheBoundIsRefused() {
    String longest = "a" + ".?".repeat((TopicPatterns.MAX_LENGTH - 1) / 2);
    refused(() -> groups.join("g", join(List.of(), longest + "xx")), "topic_pattern is "
        + (longest.length() + 2) + " characters long: at most " + TopicPatterns.MAX_LENGTH);
    assertThat(longest).hasSizeLessThanOrEqualTo(TopicPatterns.MAX_LENGTH);
    groups.join("g", join(List.of(), longest)); // at the bound: taken
  }

  @Test
  void aValidPatternJoinsWithTheTopicsItMatched() throws Exception {
    assertThat(groups.join("g", join(List.of(), "a.*"), t -> true).answer().get().topics()).containsExactly("a1");
  }
}
