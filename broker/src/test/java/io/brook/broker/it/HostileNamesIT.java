package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.v1.AckServiceGrpc;
import io.brook.protocol.v1.CommitOffsetsRequest;
import io.brook.protocol.v1.CreateGroupRequest;
import io.brook.protocol.v1.CreateTopicRequest;
import io.brook.protocol.v1.DeleteGroupRequest;
import io.brook.protocol.v1.DeleteTopicRequest;
import io.brook.protocol.v1.GroupMode;
import io.brook.protocol.v1.GroupServiceGrpc;
import io.brook.protocol.v1.JoinGroupRequest;
import io.brook.protocol.v1.ListGroupsRequest;
import io.brook.protocol.v1.ListTopicsRequest;
import io.brook.protocol.v1.OffsetCommit;
import io.brook.protocol.v1.ReceiveRequest;
import io.brook.protocol.v1.ReceiveResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every name that becomes a directory (topics, groups, a group's dead-letter topic) is checked before
 * anything touches the disk: path traversal, separators, NUL, unicode look-alikes (Cyrillic letters,
 * fullwidth letters, zero-width joiners, right-to-left overrides) and very long names are refused
 * with INVALID_ARGUMENT wherever a name enters (HostileNames lists them), and nothing appears on
 * disk. Names at the 249-character limit work, and deleting them leaves nothing behind a restart.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HostileNamesIT {
  @TempDir static Path dir;
  static BrokerProcess broker;
  static Wire wire;
  static GroupServiceGrpc.GroupServiceBlockingStub groups;

  @BeforeAll
  static void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
    wire = new Wire(broker.channel());
    groups = GroupServiceGrpc.newBlockingStub(broker.channel());
    wire.create("valid", 1);
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  /** Each way a name enters the broker, as a call that must fail. */
  private static Map<String, Consumer<String>> entries() {
    return Map.of(
        "CreateTopic", n -> wire.admin.createTopic(CreateTopicRequest.newBuilder().setName(n).build()),
        "CreateGroup", n -> groups.createGroup(CreateGroupRequest.newBuilder().setGroup(n).build()),
        "JoinGroup group", n -> groups.joinGroup(JoinGroupRequest.newBuilder().setGroup(n).addTopics("valid").build()),
        "JoinGroup topic", n -> groups.joinGroup(JoinGroupRequest.newBuilder().setGroup("valid-g").addTopics(n)
            .build()),
        "CommitOffsets group", n -> groups.commitOffsets(CommitOffsetsRequest.newBuilder().setGroup(n)
            .addOffsets(OffsetCommit.newBuilder().setTopic("valid").setOffset(0)).build()),
        "CreateGroup dead.letter.topic", n -> groups.createGroup(CreateGroupRequest.newBuilder().setGroup("dlq-g")
            .setMode(GroupMode.GROUP_MODE_ACK).putConfig("dead.letter.topic", n).build()),
        "Receive group", HostileNamesIT::receive);
  }

  /** A Receive stream's first message; its end, as the exception a unary call would throw. */
  private static void receive(String group) {
    Recorder<ReceiveResponse> answers = new Recorder<>();
    AckServiceGrpc.newStub(broker.channel()).receive(answers)
        .onNext(ReceiveRequest.newBuilder().setGroup(group).addTopics("valid").build());
    try {
      Object first = answers.next(10);
      if (first instanceof StatusRuntimeException e) {
        throw e;
      }
      throw new AssertionError("Receive accepted group '" + group + "': " + first);
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void hostileNamesAreRefusedEverywhereBeforeTouchingTheDisk() throws Exception {
    List<Path> before = files();
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<String, String> name : HostileNames.ALL.entrySet()) {
      entries().forEach((entry, call) -> {
        try {
          call.accept(name.getKey());
          wrong.add(entry + " accepted " + name.getValue());
        } catch (StatusRuntimeException e) {
          if (e.getStatus().getCode() != Status.Code.INVALID_ARGUMENT || !Wire.reason(e).equals("INVALID_REQUEST")
              || !e.getStatus().getDescription().contains("name")) {
            wrong.add(entry + " with " + name.getValue() + ": " + e.getStatus());
          }
        }
      });
    }
    assertThat(wrong).isEmpty();
    assertThat(files()).as("files under the test directory").isEqualTo(before);
    assertThat(wire.admin.listTopics(ListTopicsRequest.getDefaultInstance()).getTopicsList()).hasSize(1);
    assertThat(groups.listGroups(ListGroupsRequest.getDefaultInstance()).getGroupsList()).isEmpty();
  }

  /** 249 characters is a valid name; deleting such a topic or group leaves nothing to come back. */
  @Test
  void longestNamesCanBeCreatedAndDeletedForGood() throws Exception {
    String topic = "t".repeat(249);
    String group = "g".repeat(249);
    wire.create(topic, 1);
    groups.createGroup(CreateGroupRequest.newBuilder().setGroup(group).build());
    wire.admin.deleteTopic(DeleteTopicRequest.newBuilder().setName(topic).build());
    groups.deleteGroup(DeleteGroupRequest.newBuilder().setGroup(group).build());
    assertThat(files()).noneMatch(p -> p.toString().contains("ttttttttt") || p.toString().contains("ggggggggg"));

    broker.stop();
    broker.restart();
    wire = new Wire(broker.channel());
    groups = GroupServiceGrpc.newBlockingStub(broker.channel());
    assertThat(wire.admin.listTopics(ListTopicsRequest.getDefaultInstance()).getTopicsList())
        .noneMatch(t -> t.getName().equals(topic));
    assertThat(groups.listGroups(ListGroupsRequest.getDefaultInstance()).getGroupsList())
        .noneMatch(g -> g.getName().equals(group));
  }

  /** Everything under the test directory but the broker's log. */
  private static List<Path> files() throws Exception {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> !p.toString().endsWith(".log")).sorted().toList();
    }
  }
}
