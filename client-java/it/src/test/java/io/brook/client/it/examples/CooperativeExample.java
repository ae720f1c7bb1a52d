package io.brook.client.it.examples;

import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRebalanceListener;
import io.brook.client.consumer.OffsetResetStrategy;
import io.brook.client.consumer.RebalanceProtocol;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * docs/CLIENTS.md's example of cooperative rebalancing; ExamplesIT runs it against a real broker.
 * Needs topic "tickets" with two partitions. Member a reads both, then member b joins: a keeps
 * tickets-0 and reads on while the group rebalances; only tickets-1 is revoked from a (its listener
 * commits it) before b gets it. Prints "a assigned [tickets-0, tickets-1]", "a revoked [tickets-1]",
 * "b assigned [tickets-1]".
 */
public final class CooperativeExample {
  /** One member polling on its own thread, as an application. */
  static final class Member implements ConsumerRebalanceListener {
    final String name;
    final BrookConsumer<String, String> consumer;
    final Set<TopicPartition> owned = ConcurrentHashMap.newKeySet();
    volatile boolean running = true;
    volatile boolean printing = true;
    final Thread thread;

    Member(String name, String broker) {
      this.name = name;
      ConsumerConfig config = ConsumerConfig.builder().broker(broker).groupId("support")
          .autoOffsetReset(OffsetResetStrategy.EARLIEST)
          .rebalanceProtocol(RebalanceProtocol.COOPERATIVE) // the opt-in
          .build();
      consumer = new BrookConsumer<>(config, Serdes.stringDeserializer(), Serdes.stringDeserializer());
      consumer.subscribe(List.of("tickets"), this);
      thread = new Thread(() -> {
        while (running) {
          consumer.poll(Duration.ofMillis(200)); // records of owned partitions keep coming during a rebalance
        }
        consumer.close();
      }, name);
      thread.start();
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      // Only the partitions that move; auto commit has committed them, the member still owns them.
      owned.removeAll(partitions);
      print(name + " revoked " + partitions.stream().sorted().toList());
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      owned.addAll(partitions); // only the partitions added: often none
      if (!partitions.isEmpty()) {
        print(name + " assigned " + partitions.stream().sorted().toList());
      }
    }

    void print(String line) {
      synchronized (CooperativeExample.class) {
        if (printing) {
          System.out.println(line);
        }
      }
    }

    void stop() throws InterruptedException {
      running = false;
      thread.join();
    }
  }

  public static void main(String[] args) throws InterruptedException {
    String broker = args.length > 0 ? args[0] : "localhost:7070";
    Member a = new Member("a", broker);
    await(() -> a.owned.size() == 2);
    Member b = new Member("b", broker);
    await(() -> a.owned.size() == 1 && b.owned.size() == 1);
    synchronized (CooperativeExample.class) { // closing moves partitions again: not printed
      a.printing = false;
      b.printing = false;
    }
    b.stop();
    a.stop();
  }

  static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("not within 30 s");
      }
      Thread.sleep(10);
    }
  }
}
