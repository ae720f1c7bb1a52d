// Runs the previous release's Java client (scripts/previous-client.sh) in a JVM of its own, for
// PreviousClientIT: java -cp "LIB/*" PreviousClientDriver.java COMMAND ADDRESS ... (JDK's single-file
// launcher, compiled against the previous client's jars, so it is held to that release's API).
//   produce ADDRESS TOPIC            five records to partition 0 (idempotent, the default); prints "acked OFFSET"
//   consume ADDRESS TOPIC COUNT      BrookConsumer, assign + seekToBeginning; prints one line per record
//   ack ADDRESS GROUP TOPIC COUNT    AckConsumer, acks each record, flushes; prints one line per record
// A record's line: OFFSET TIMESTAMP KEY VALUE [HEADERS] (KEY "null" when absent; a value over 64 bytes
// as LENGTHxFIRST-CHAR), the form PreviousClientIT prints the current clients' records in.
import io.brook.client.Header;
import io.brook.client.Serdes;
import io.brook.client.TopicPartition;
import io.brook.client.ack.AckConsumer;
import io.brook.client.ack.AckConsumerConfig;
import io.brook.client.ack.AckRecord;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.ProducerConfig;
import io.brook.client.producer.ProducerRecord;
import io.brook.client.producer.RecordMetadata;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

public class PreviousClientDriver {
  static final long T = 1_700_000_000_000L;

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "produce" -> produce(args[1], args[2]);
      case "consume" -> consume(args[1], args[2], Integer.parseInt(args[3]));
      case "ack" -> ack(args[1], args[2], args[3], Integer.parseInt(args[4]));
      default -> throw new IllegalArgumentException("unknown command " + args[0]);
    }
  }

  static void produce(String address, String topic) throws Exception {
    List<CompletableFuture<RecordMetadata>> sent = new ArrayList<>();
    try (BrookProducer<byte[], byte[]> p = new BrookProducer<>(ProducerConfig.builder().broker(address).build(),
        Serdes.bytesSerializer(), Serdes.bytesSerializer())) {
      for (int i = 0; i < 5; i++) {
        byte[] key = i == 1 ? null : utf8("k" + i);
        List<Header> headers = i % 2 == 0 ? List.of(Header.of("h", Integer.toString(i))) : List.of();
        sent.add(p.send(new ProducerRecord<>(topic, 0, T + i, key, utf8("old-" + i), headers)));
      }
      p.flush();
    }
    for (CompletableFuture<RecordMetadata> f : sent) {
      System.out.println("acked " + f.get().offset());
    }
  }

  static void consume(String address, String topic, int count) {
    int got = 0;
    try (BrookConsumer<byte[], byte[]> c = new BrookConsumer<>(ConsumerConfig.builder().broker(address).build(),
        Serdes.bytesDeserializer(), Serdes.bytesDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      for (int i = 0; i < 300 && got < count; i++) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          System.out.println(line(r));
          got++;
        }
      }
    }
  }

  static void ack(String address, String group, String topic, int count) {
    int got = 0;
    try (AckConsumer<byte[], byte[]> c = AckConsumer.ofBytes(AckConsumerConfig.builder().broker(address).group(group)
        .topics(topic).build())) {
      for (int i = 0; i < 300 && got < count; i++) {
        for (AckRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          System.out.println(line(r.record()));
          c.ack(r);
          got++;
        }
      }
      if (!c.flush().isEmpty()) {
        throw new IllegalStateException("acks failed");
      }
    }
  }

  static String line(ConsumerRecord<byte[], byte[]> r) {
    List<String> headers = new ArrayList<>();
    for (Header h : r.headers()) {
      headers.add(h.key() + "=" + new String(h.value(), StandardCharsets.UTF_8));
    }
    return r.offset() + " " + r.timestampMs() + " " + (r.key() == null ? "null" : text(r.key())) + " "
        + text(r.value()) + " " + headers;
  }

  static String text(byte[] b) {
    if (b == null) {
      return "";
    }
    return b.length > 64 ? b.length + "x" + (char) b[0] : new String(b, StandardCharsets.UTF_8);
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
