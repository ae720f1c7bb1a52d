package io.brook.client.it.examples;

import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.GroupInfo;
import io.brook.client.admin.GroupListing;
import io.brook.client.admin.NewGroup;
import io.brook.client.admin.NewTopic;
import io.brook.client.admin.TopicInfo;
import io.brook.client.errors.TopicExistsException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Creates, changes, lists and deletes a topic and a group. Run: {@code AdminExample [host:port]}.
 */
public final class AdminExample {
  public static void main(String[] args) {
    String address = args.length > 0 ? args[0] : "localhost:7070";
    try (BrookAdmin admin = BrookAdmin.create(address)) {
      TopicInfo topic = admin.createTopic(NewTopic.of("example-orders").withPartitions(3)
          .withConfig("retention.ms", "86400000"));
      System.out.println("created " + topic.name() + " with " + topic.partitionCount() + " partitions");

      topic = admin.createPartitions("example-orders", 4);
      topic = admin.alterTopicConfig("example-orders", Map.of("retention.ms", "3600000"), List.of());
      System.out.println("now " + topic.partitionCount() + " partitions, retention.ms="
          + topic.config().get("retention.ms"));

      try {
        admin.createTopic(NewTopic.of("example-orders"));
      } catch (TopicExistsException e) {
        System.out.println("cannot create it twice: " + e.reason());
      }

      GroupInfo group = admin.createGroup(NewGroup.ackMode("example-workers")
          .withConfig("max.delivery.attempts", "3"));
      System.out.println("created group " + group.name() + " in mode " + group.mode() + ", max.delivery.attempts="
          + group.config().get("max.delivery.attempts"));
      for (GroupListing g : admin.listGroups(Duration.ofSeconds(5))) { // this call's own timeout
        System.out.println("group " + g.name() + ": " + g.mode() + ", " + g.state() + ", " + g.memberCount()
            + " members");
      }

      admin.deleteGroup("example-workers");
      admin.deleteTopic("example-orders");
      System.out.println("deleted group example-workers and topic example-orders");
    }
  }
}
