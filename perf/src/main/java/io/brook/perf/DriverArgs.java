package io.brook.perf;

import java.util.function.Function;

/** The command line of the perf drivers: HOST:PORT, then {@code --key=value} or {@code --flag} options. */
final class DriverArgs {
  /** Takes one option; {@code arg} is the whole argument, for messages. */
  interface Options {
    void set(String key, String value, String arg);
  }

  /** Where HOST:PORT goes. */
  interface Address {
    void set(String host, int port);
  }

  private DriverArgs() {}

  static void parse(String[] args, Address address, Options options,
      Function<String, IllegalArgumentException> usage) {
    for (String arg : args) {
      if (!arg.startsWith("--")) {
        int colon = arg.lastIndexOf(':');
        if (colon < 0) {
          throw usage.apply("expected HOST:PORT, got " + arg);
        }
        address.set(arg.substring(0, colon), Integer.parseInt(arg.substring(colon + 1)));
        continue;
      }
      int eq = arg.indexOf('=');
      options.set(eq < 0 ? arg.substring(2) : arg.substring(2, eq), eq < 0 ? "" : arg.substring(eq + 1), arg);
    }
  }
}
