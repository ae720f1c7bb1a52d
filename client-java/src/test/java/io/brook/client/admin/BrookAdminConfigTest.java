package io.brook.client.admin;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.client.errors.ConfigException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class BrookAdminConfigTest {
  @Test
  void oneExceptionNamesEveryBadOption() {
    assertThatThrownBy(() -> BrookAdmin.builder().broker("host:99999").requestTimeout(Duration.ofMillis(-1)).build())
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("broker must have a port in 1..65535 (got host:99999)")
        .hasMessageContaining("requestTimeout must be >= 1 ms");
  }

  @Test
  void aPerCallTimeoutUnderOneMillisecondIsRefusedBeforeAnyRequest() {
    try (BrookAdmin admin = BrookAdmin.create("127.0.0.1:1")) { // no broker there: nothing is sent
      assertThatThrownBy(() -> admin.describeTopic("orders", Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("the timeout of describeTopic(orders) must be >= 1 ms, got PT0S");
      assertThatThrownBy(() -> admin.listTopics(null))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("the timeout of listTopics must be >= 1 ms, got null");
    }
  }
}
