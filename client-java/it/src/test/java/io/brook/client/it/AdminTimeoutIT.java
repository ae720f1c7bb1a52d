package io.brook.client.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.broker.it.BrokerProcess;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.NewTopic;
import io.brook.client.admin.TopicInfo;
import io.brook.client.errors.BrookTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin's per-call timeouts against a broker that does not answer: the real broker, frozen with
 * SIGSTOP (its connection stays open, nothing is answered), so a call ends only at its deadline.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AdminTimeoutIT {
  @TempDir Path dir;
  BrokerProcess broker;

  @BeforeEach
  void start() throws Exception {
    broker = BrokerProcess.start(dir.resolve("data"));
  }

  @AfterEach
  void stop() throws Exception {
    broker.close();
  }

  /**
   * A call's own timeout, shorter than the admin's requestTimeout (60 s): the call gives up at it,
   * with a BrookTimeoutException naming the call and the timeout, and the admin works on once the
   * broker answers again. (The 10 s bound only tells 0.5 s from 60 s.)
   */
  @Test
  void aShortPerCallTimeoutEndsTheCallAtItNamingCallAndTimeout() throws Exception {
    try (BrookAdmin admin = BrookAdmin.builder().broker(broker.address()).requestTimeout(Duration.ofSeconds(60))
        .build()) {
      admin.createTopic(NewTopic.of("orders"));
      broker.freeze();

      long start = System.nanoTime();
      assertThatThrownBy(() -> admin.describeTopic("orders", Duration.ofMillis(500)))
          .isInstanceOf(BrookTimeoutException.class)
          .hasMessageStartingWith("describeTopic(orders) did not finish within its timeout of 500 ms")
          .satisfies(e -> assertThat(((BrookTimeoutException) e).reason()).isEqualTo("TIMEOUT"));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).as("ended by its own timeout, not requestTimeout")
          .isLessThan(Duration.ofSeconds(10));
      assertThatThrownBy(() -> admin.listGroups(Duration.ofMillis(300)))
          .isInstanceOf(BrookTimeoutException.class)
          .hasMessageStartingWith("listGroups did not finish within its timeout of 300 ms");

      broker.thaw();
      assertThat(admin.describeTopic("orders", Duration.ofSeconds(30)).name()).isEqualTo("orders");
    }
  }

  /**
   * A call's own timeout, longer than the admin's requestTimeout (200 ms): the call outlives a
   * freeze of a second and gets its answer once the broker goes on.
   */
  @Test
  void aLongPerCallTimeoutOutlivesTheRequestTimeout() throws Exception {
    try (BrookAdmin admin = BrookAdmin.builder().broker(broker.address()).requestTimeout(Duration.ofMillis(200))
        .build()) {
      admin.createTopic(NewTopic.of("orders"), Duration.ofSeconds(30));
      broker.freeze();
      CompletableFuture<TopicInfo> call = CompletableFuture.supplyAsync(
          () -> admin.describeTopic("orders", Duration.ofSeconds(60)));
      Thread.sleep(1000); // longer than requestTimeout: the call must still be waiting
      broker.thaw();
      assertThat(call.get(60, TimeUnit.SECONDS).name()).isEqualTo("orders");

      broker.freeze();
      assertThatThrownBy(() -> admin.describeTopic("orders")).as("without its own timeout: requestTimeout")
          .isInstanceOf(BrookTimeoutException.class)
          .hasMessageStartingWith("describeTopic(orders) did not finish within its timeout of 200 ms");
    }
  }
}
