package io.brook.broker.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.broker.api.ForwardServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code brook forward} in this JVM against ForwardService with two routes and the broker's auth
 * (ForwardServer): what it prints and its exit codes. CliForwardIT runs bin/brook against the broker.
 */
class ForwardCommandTest {
  @TempDir static Path dir;
  static ForwardServer server;

  record Run(int exitCode, String out, String err) {}

  @BeforeAll
  static void start() throws Exception {
    server = new ForwardServer(dir);
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  static synchronized Run brook(String principal, String... args) {
    PrintStream out = System.out;
    PrintStream err = System.err;
    ByteArrayOutputStream o = new ByteArrayOutputStream();
    ByteArrayOutputStream e = new ByteArrayOutputStream();
    try {
      System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
      String[] all = new String[args.length + 4];
      System.arraycopy(args, 0, all, 0, args.length);
      all[args.length] = "--broker";
      all[args.length + 1] = server.address();
      all[args.length + 2] = "--token";
      all[args.length + 3] = ForwardServer.TOKENS.get(principal);
      int code = BrookCli.run(all);
      return new Run(code, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    } finally {
      System.setOut(out);
      System.setErr(err);
    }
  }

  @Test
  void listShowsOneLinePerVisibleRoute() {
    Run r = brook("root", "forward", "list");
    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out().lines()).containsExactly(
        "ROUTE    SOURCE    TARGET   STATE        FORWARDED  LAG  LAG-AGE  DROPPED  ERRORS",
        "orders   orders    {topic}  " + state("orders") + "  42         15   1.5s     3        7",
        "sensors  sensor.*  {topic}  " + state("sensors") + "  42         5    1.5s     3        7");
    assertThat(brook("nobody", "forward", "list").out())
        .isEqualTo("No forward routes (define them in the broker's config file as forward.<route>.<key>).\n");
  }

  @Test
  void statusOfOneRouteShowsItsCursors() {
    Run r = brook("viewer", "forward", "status", "orders");
    assertThat(r.exitCode()).as(r.toString()).isZero();
    assertThat(r.out()).contains("Route: orders  state: ",
        "Source: orders  target: {topic}  bootstrap: 127.0.0.1:1",
        "Forwarded: 42 records, 4200 bytes  lag: 15 records, 1.5s  dropped: 3",
        "Errors: 7  network=7",
        "Last error: Connection refused (at 2023-11-14T22:13:20Z)",
        "Cursor group: __forward.orders");
    assertThat(r.out().lines().dropWhile(l -> !l.startsWith("TOPIC"))).containsExactly(
        "TOPIC   PARTITION  POSITION  END-OFFSET  LAG",
        "orders  0          0         5           5",
        "orders  1          10        15          5",
        "orders  2          20        25          5");
  }

  @Test
  void pauseAndResumeSayWhatTheyDidAndRefusalsExitOne() {
    Run paused = brook("ops", "forward", "pause", "orders");
    assertThat(paused).isEqualTo(new Run(0, "Paused forward route orders (15 records behind)\n", ""));
    assertThat(brook("ops", "forward", "status", "orders").out()).contains("Route: orders  state: paused");
    Run resumed = brook("ops", "forward", "resume", "orders");
    assertThat(resumed).isEqualTo(new Run(0, "Resumed forward route orders (state starting, 15 records behind)\n", ""));
    assertThat(brook("viewer", "forward", "pause", "orders")).isEqualTo(new Run(1, "", "brook: principal viewer lacks "
        + "admin on topic orders (the source of forward route orders) (PERMISSION_DENIED)\n"));
    assertThat(brook("ops", "forward", "status", "nope")).isEqualTo(new Run(1, "",
        "brook: no forward route 'nope' (routes: orders) (INVALID_REQUEST)\n"));
    assertThat(brook("root", "forward", "pause").exitCode()).isEqualTo(BrookCli.EXIT_USAGE);
  }

  private static String state(String route) {
    String state = server.routes.route(route).state().name();
    return String.format("%-11s", ForwardCommand.name(io.brook.client.admin.ForwardRouteState.valueOf(state)));
  }
}
