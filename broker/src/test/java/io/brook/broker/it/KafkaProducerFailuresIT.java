package io.brook.broker.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.protocol.v1.Record;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An idempotent kafka-clients producer meeting failures on the real broker: an answer lost with its
 * connection (the producer retries the batch; the broker must not write it twice), and a kill -9
 * part-way through (nothing acknowledged may be lost, offsets stay contiguous).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class KafkaProducerFailuresIT {
  @TempDir Path dir;

  static KafkaProducer<byte[], byte[]> producer(String bootstrap) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("acks", "all");
    p.put("enable.idempotence", true);
    p.put("linger.ms", 5);
    p.put("retry.backoff.ms", 50);
    p.put("request.timeout.ms", 5_000);
    p.put("delivery.timeout.ms", 120_000);
    return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
  }

  @Test
  void aBatchRetriedAfterItsAnswerWasLostIsWrittenOnce() throws Exception {
    int kafkaPort = BrokerStartIT.freePort();
    AtomicBoolean first = new AtomicBoolean(true);
    try (ProduceAnswerProxy proxy = new ProduceAnswerProxy(kafkaPort, () -> first.getAndSet(false));
        BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set", "kafka.listen=127.0.0.1:" + kafkaPort,
            "--set", "kafka.advertised=127.0.0.1:" + proxy.port())) {
      Wire wire = new Wire(broker.channel());
      wire.create("retried", 1);
      List<RecordMetadata> acked = new ArrayList<>();
      try (KafkaProducer<byte[], byte[]> producer = producer("127.0.0.1:" + proxy.port())) {
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
          sends.add(producer.send(new ProducerRecord<>("retried", 0, null, ("r" + i).getBytes(StandardCharsets.UTF_8))));
        }
        for (Future<RecordMetadata> f : sends) {
          acked.add(f.get(60, TimeUnit.SECONDS));
        }
      }
      assertThat(proxy.dropped.get()).as("the proxy dropped a Produce answer").isEqualTo(1);
      List<Record> stored = wire.readAll("retried", 0);
      assertThat(stored).extracting(r -> r.getValue().toStringUtf8())
          .as("every record once, in order").containsExactlyElementsOf(
              java.util.stream.IntStream.range(0, 20).mapToObj(i -> "r" + i).toList());
      assertThat(acked).extracting(RecordMetadata::offset).containsExactlyElementsOf(
          java.util.stream.LongStream.range(0, 20).boxed().toList());
    }
  }

  @Test
  void killNineMidProduceLosesNothingAcknowledgedAndOffsetsStayContiguous() throws Exception {
    int kafkaPort = BrokerStartIT.freePort();
    try (BrokerProcess broker = BrokerProcess.start(dir.resolve("data"), "--set",
        "kafka.listen=127.0.0.1:" + kafkaPort)) {
      Wire wire = new Wire(broker.channel());
      wire.create("killed", 1);
      List<String> ackedValues = new CopyOnWriteArrayList<>();
      List<Throwable> failures = new CopyOnWriteArrayList<>();
      AtomicInteger sent = new AtomicInteger();
      AtomicBoolean stop = new AtomicBoolean();
      Thread sender = new Thread(() -> {
        try (KafkaProducer<byte[], byte[]> producer = producer("127.0.0.1:" + kafkaPort)) {
          for (int i = 0; i < 20_000 && !stop.get(); i++) {
            String v = "k" + i;
            producer.send(new ProducerRecord<>("killed", 0, null, v.getBytes(StandardCharsets.UTF_8)), (md, e) -> {
              if (e == null) {
                ackedValues.add(v);
              } else {
                failures.add(e);
              }
            });
            sent.incrementAndGet();
            if (i % 200 == 0) {
              Thread.sleep(5); // spread the sends over the kill
            }
          }
          producer.flush();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      sender.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (ackedValues.size() < 2_000 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      broker.kill9();
      broker.restartOnSamePort();
      sender.join(TimeUnit.SECONDS.toMillis(180));
      stop.set(true);
      assertThat(sender.isAlive()).isFalse();
      assertThat(ackedValues.size()).as("acknowledged before and after the kill").isGreaterThan(2_000);

      List<Record> stored = new Wire(broker.channel()).readAll("killed", 0);
      for (int i = 0; i < stored.size(); i++) {
        assertThat(stored.get(i).getOffset()).as("offsets contiguous from 0").isEqualTo(i);
      }
      Set<String> storedValues = new HashSet<>();
      stored.forEach(r -> storedValues.add(r.getValue().toStringUtf8()));
      assertThat(storedValues).as("nothing acknowledged is lost").containsAll(ackedValues);
      assertThat(storedValues).as("no record twice (idempotence across the restart)").hasSize(stored.size());
      assertThat(failures).as("the producer retried through the restart").isEmpty();
    }
  }
}
