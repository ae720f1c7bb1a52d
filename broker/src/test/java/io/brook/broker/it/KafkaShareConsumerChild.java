package io.brook.broker.it;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;

/**
 * A KafkaShareConsumer in a JVM of its own, for KafkaShareCrashIT to kill (SIGKILL: no acknowledgement,
 * no leave). Arguments: bootstrap, group, topic. In explicit mode it polls until it gets records,
 * prints "held " and their offsets, and then holds them (heartbeats going on) until killed.
 */
public final class KafkaShareConsumerChild {
  private KafkaShareConsumerChild() {}

  public static void main(String[] args) throws InterruptedException {
    KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(ShareKit.props(args[0], args[1],
        Map.of("share.acknowledgement.mode", "explicit")));
    c.subscribe(List.of(args[2]));
    while (true) {
      ConsumerRecords<String, String> rs = c.poll(Duration.ofMillis(200));
      if (!rs.isEmpty()) {
        System.out.println("held " + StreamSupport.stream(rs.spliterator(), false)
            .map(r -> r.offset() + ":" + r.deliveryCount().orElseThrow()).collect(Collectors.joining(",")));
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
      }
    }
  }
}
