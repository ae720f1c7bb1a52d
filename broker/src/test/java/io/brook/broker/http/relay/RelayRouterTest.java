package io.brook.broker.http.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class RelayRouterTest {
  private static final RelayHandler NONE = r -> CompletableFuture.completedFuture(RelayReply.noContent());

  private final RelayRouter router = new RelayRouter()
      .route("POST", "/topics/{topic}/records", List.of("durability"), NONE)
      .route("GET", "/topics/{topic}/partitions/{partition}/records", List.of("offset"), NONE);

  @Test
  void templatesMatchOneDecodedSegmentPerParameter() {
    RelayRouter.Match m = router.match("GET", "/topics/orders.eu%2F1/partitions/3/records");
    assertThat(m.route().template()).isEqualTo("/topics/{topic}/partitions/{partition}/records");
    assertThat(m.pathParams()).isEqualTo(Map.of("topic", "orders.eu/1", "partition", "3"));
    assertThat(router.match("POST", "/topics/a+b/records").pathParams()).containsEntry("topic", "a+b");
    assertThat(router.match("GET", "/topics/orders/records")).isNull();
    assertThat(router.match("POST", "/topics//records")).isNull();
    assertThat(router.match("POST", "/topics/orders/records/")).isNull();
    assertThat(router.match("POST", "/topics/orders/records/x")).isNull();
    assertThat(router.match("POST", "/topics/%zz/records")).isNull();
    assertThat(router.methods("/topics/orders/records")).containsExactly("POST");
    assertThat(router.methods("/topics/orders")).isEmpty();
    assertThat(router.owns("/topics")).isTrue();
    assertThat(router.owns("/metrics")).isFalse();
    assertThat(router.routes().get(1).pathParams()).containsExactly("topic", "partition");
  }

  @Test
  void aRouteIsRegisteredOnce() {
    assertThatThrownBy(() -> router.route("POST", "/topics/{topic}/records", List.of(), NONE))
        .hasMessageContaining("registered twice");
    assertThatThrownBy(() -> router.route("GET", "topics", List.of(), NONE)).hasMessageContaining("template");
  }
}
