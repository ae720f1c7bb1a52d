package io.brook.broker.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.ForwardCursor;
import io.brook.client.admin.ForwardRouteInfo;
import io.brook.client.admin.ForwardRouteState;
import io.brook.client.errors.AuthorizationException;
import io.brook.client.errors.InvalidRequestException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ForwardService through the Java admin client and the broker's auth: what each principal sees and
 * may change (D71), and the route as the wire carries it.
 */
class ForwardGrpcServiceTest {
  @TempDir static Path dir;
  static ForwardServer server;

  @BeforeAll
  static void start() throws Exception {
    server = new ForwardServer(dir);
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  static <T> T as(String principal, Function<BrookAdmin, T> call) {
    try (BrookAdmin admin = server.admin(principal)) {
      return call.apply(admin);
    }
  }

  static List<ForwardRouteInfo> list(String principal) {
    try (BrookAdmin admin = server.admin(principal)) {
      return admin.listForwardRoutes();
    }
  }

  @Test
  void aRouteCrossesTheWireWhole() {
    ForwardRouteInfo r = as("root", a -> a.describeForwardRoute("orders"));
    assertThat(r).isEqualTo(new ForwardRouteInfo("orders", "orders", "{topic}", "127.0.0.1:1",
        r.state(), 42, 4200, 15, 1.5, 3, Map.of("network", 7L), "Connection refused", 1_700_000_000_000L,
        List.of(new ForwardCursor("orders", 0, 0, 5), new ForwardCursor("orders", 1, 10, 15),
            new ForwardCursor("orders", 2, 20, 25))));
    assertThat(list("root")).extracting(ForwardRouteInfo::name, ForwardRouteInfo::partitions)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("orders", List.of()),
            org.assertj.core.groups.Tuple.tuple("sensors", List.of()));
  }

  /** Who sees which route: any permission on the source topic, or on the whole prefix of a prefix route. */
  @Test
  void listShowsTheRoutesWhoseSourceTheCallerHoldsAnyPermissionOn() {
    Map<String, List<String>> expected = Map.of("root", List.of("orders", "sensors"), "ops", List.of("orders"),
        "fleet", List.of("sensors"), "narrow", List.of(), "viewer", List.of("orders"), "nobody", List.of());
    expected.forEach((who, names) -> assertThat(list(who))
        .as(who).extracting(ForwardRouteInfo::name).containsExactlyElementsOf(names));
  }

  /** Pause and resume: admin on the source topic, or on the whole prefix; seeing the route is not enough. */
  @Test
  void pauseAndResumeNeedAdminOnTheSource() {
    List<String> failures = new ArrayList<>();
    // principal, route, expected: ok | denied (sees it, may not change it) | hidden (may not see it)
    String[][] matrix = {
        {"root", "orders", "ok"}, {"root", "sensors", "ok"},
        {"ops", "orders", "ok"}, {"ops", "sensors", "hidden"},
        {"fleet", "sensors", "ok"}, {"fleet", "orders", "hidden"},
        {"narrow", "sensors", "hidden"}, {"viewer", "orders", "denied"}, {"nobody", "orders", "hidden"}};
    for (String[] row : matrix) {
      for (String op : List.of("pause", "resume")) {
        String what = row[0] + " " + op + " " + row[1] + ": ";
        try {
          ForwardRouteInfo r = as(row[0], a -> op.equals("pause") ? a.pauseForwardRoute(row[1])
              : a.resumeForwardRoute(row[1]));
          if (!row[2].equals("ok")) {
            failures.add(what + "allowed, expected " + row[2]);
          } else if (r.state() != (op.equals("pause") ? ForwardRouteState.PAUSED : ForwardRouteState.STARTING)) {
            failures.add(what + "state " + r.state());
          }
        } catch (AuthorizationException e) {
          String source = row[1].equals("orders") ? "topic orders" : "topic prefix sensor.*";
          String expected = "principal " + row[0] + " lacks " + (row[2].equals("hidden") ? "any permission" : "admin")
              + " on " + source + " (the source of forward route " + row[1] + ")";
          if (row[2].equals("ok") || !e.getMessage().equals(expected)) {
            failures.add(what + e.getMessage() + ", expected " + row[2] + ": " + expected);
          }
        }
      }
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void anUnknownRouteIsAnInvalidRequestNamingTheRoutesTheCallerMaySeeAndAHiddenOneIsDenied() {
    assertThatThrownBy(() -> as("root", a -> a.describeForwardRoute("nope")))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessage("no forward route 'nope' (routes: orders, sensors)");
    assertThatThrownBy(() -> as("ops", a -> a.pauseForwardRoute("nope")))
        .isInstanceOf(InvalidRequestException.class).hasMessage("no forward route 'nope' (routes: orders)");
    assertThatThrownBy(() -> as("nobody", a -> a.describeForwardRoute("nope")))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessage("no forward route 'nope' (no routes are configured that you may see)");
    assertThatThrownBy(() -> as("nobody", a -> a.describeForwardRoute("orders")))
        .isInstanceOf(AuthorizationException.class)
        .hasMessage("principal nobody lacks any permission on topic orders (the source of forward route orders)");
    assertThatThrownBy(() -> as("root", a -> a.resumeForwardRoute("")))
        .isInstanceOf(InvalidRequestException.class).hasMessage("route is required");
  }
}
