package io.brook.perf.harness;

import io.brook.client.Durability;
import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.ack.AckConsumer;
import io.brook.client.ack.AckConsumerConfig;
import io.brook.client.ack.AckRecord;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.NewGroup;
import io.brook.client.admin.NewTopic;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.ProducerConfig;
import io.brook.client.producer.ProducerRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Brook through its Java client (io.brook.client), as an application uses it. */
final class BrookClient implements SystemClient {
  private final String name;
  private final Server server;
  private final BrookAdmin admin;

  BrookClient(String name, Server server) {
    this.name = name;
    this.server = server;
    this.admin = BrookAdmin.create(server.address());
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Server server() {
    return server;
  }

  @Override
  public void createTopic(String topic, int partitions) {
    admin.createTopic(NewTopic.of(topic).withPartitions(partitions));
  }

  @Override
  public void deleteTopic(String topic) {
    try {
      admin.deleteTopic(topic);
    } catch (RuntimeException e) {
      // best effort: the broker's data directory goes away with the run anyway
    }
  }

  @Override
  public Producer producer(String topic, ClientSettings s) {
    ProducerConfig config = ProducerConfig.builder().broker(server.address()).batchSize(s.batchSize())
        .linger(Duration.ofMillis(s.lingerMs())).durability(s.synced() ? Durability.SYNCED : Durability.WRITTEN)
        .build();
    BrookProducer<byte[], byte[]> p = new BrookProducer<>(config, Serdes.bytesSerializer(), Serdes.bytesSerializer());
    return new Producer() {
      @Override
      public void send(byte[] value, Completion done) {
        p.send(new ProducerRecord<>(topic, value)).whenComplete((m, e) -> done.done(e));
      }

      @Override
      public void send(int partition, byte[] value, Completion done) {
        p.send(new ProducerRecord<>(topic, partition, null, value)).whenComplete((m, e) -> done.done(e));
      }

      @Override
      public void flush() {
        p.flush();
      }

      @Override
      public void close() {
        p.close();
      }
    };
  }

  @Override
  public Consumer consumer(String topic, int partitions, ClientSettings s) {
    ConsumerConfig config = ConsumerConfig.builder().broker(server.address()).maxPollRecords(s.maxPollRecords())
        .fetchMaxBytes(s.fetchMaxBytes()).build();
    BrookConsumer<byte[], byte[]> c = new BrookConsumer<>(config, Serdes.bytesDeserializer(),
        Serdes.bytesDeserializer());
    List<TopicPartition> all = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      all.add(new TopicPartition(topic, p));
    }
    c.assign(all);
    c.seekToBeginning(all);
    return new Consumer() {
      @Override
      public int poll(Duration timeout, RecordSink sink) {
        int n = 0;
        for (ConsumerRecord<byte[], byte[]> r : c.poll(timeout)) {
          sink.accept(r.partition(), r.offset(), r.value(), 1);
          n++;
        }
        return n;
      }

      @Override
      public void close() {
        c.close();
      }
    };
  }

  @Override
  public void prepareAckGroup(String group, String topic) {
    admin.createGroup(NewGroup.ackMode(group).withConfig("auto.offset.reset", "earliest"));
  }

  @Override
  public AckReader ackReader(String group, String topic, ClientSettings s) {
    AckConsumer<byte[], byte[]> c = AckConsumer.ofBytes(AckConsumerConfig.builder().broker(server.address())
        .group(group).topics(topic).maxPollRecords(s.maxPollRecords()).build());
    return new AckReader() {
      @Override
      public int pollAndAck(Duration timeout, RecordSink sink) {
        List<AckRecord<byte[], byte[]>> got = c.poll(timeout);
        for (AckRecord<byte[], byte[]> r : got) {
          sink.accept(r.partition(), r.offset(), r.value(), r.deliveryAttempt());
          c.ack(r);
        }
        return got.size();
      }

      @Override
      public void flush() {
        c.flush();
      }

      @Override
      public void close() {
        c.close();
      }
    };
  }

  @Override
  public void close() {
    admin.close();
  }
}
