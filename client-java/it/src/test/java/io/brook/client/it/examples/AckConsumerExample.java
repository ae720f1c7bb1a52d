package io.brook.client.it.examples;

import io.brook.client.ack.AckConsumer;
import io.brook.client.ack.AckConsumerConfig;
import io.brook.client.ack.AckRecord;
import io.brook.client.ack.SettleFailure;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.NewGroup;
import io.brook.client.errors.GroupExistsException;
import java.time.Duration;
import java.util.List;

/**
 * Works off the topic "jobs" as a member of the ack-mode group "workers": acks what it handled,
 * nacks "retry…" records once (they come again 200 ms later with attempt 2), rejects "poison…"
 * records (they go to the dead-letter topic "workers.dlq"), and stops after 3 s without records.
 * Run: {@code AckConsumerExample [host:port]}.
 */
public final class AckConsumerExample {
  public static void main(String[] args) {
    String address = args.length > 0 ? args[0] : "localhost:7070";

    // A new ack group starts at the end of its topics; this one starts at the beginning.
    try (BrookAdmin admin = BrookAdmin.create(address)) {
      admin.createGroup(NewGroup.ackMode("workers").withConfig("auto.offset.reset", "earliest"));
    } catch (GroupExistsException alreadyThere) {
      // made by an earlier run
    }

    AckConsumerConfig config = AckConsumerConfig.builder()
        .broker(address)
        .group("workers")
        .topics("jobs")
        .maxOutstandingRecords(100) // at most 100 records leased to us and not settled
        .settleFailureHandler(f -> System.err.println("not settled: " + f))
        .build();
    try (AckConsumer<String, String> consumer = AckConsumer.ofStrings(config)) {
      int idlePolls = 0;
      while (idlePolls < 10) {
        List<AckRecord<String, String>> records = consumer.poll(Duration.ofMillis(300));
        idlePolls = records.isEmpty() ? idlePolls + 1 : 0;
        for (AckRecord<String, String> r : records) {
          System.out.println("got " + r.value() + " (attempt " + r.deliveryAttempt() + ")");
          if (r.value().startsWith("retry") && r.deliveryAttempt() == 1) {
            consumer.nack(r, Duration.ofMillis(200)); // deliver it again later
          } else if (r.value().startsWith("poison")) {
            consumer.reject(r); // to the dead-letter topic now
          } else {
            consumer.ack(r);
          }
        }
      }
      List<SettleFailure> failures = consumer.flush(); // what is still waiting, sent now
      System.out.println("done: " + consumer.stats().receivedRecords() + " deliveries, " + failures.size()
          + " settle failures");
    }
  }
}
