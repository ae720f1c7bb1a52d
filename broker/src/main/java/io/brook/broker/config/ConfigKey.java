package io.brook.broker.config;

import java.util.Locale;
import java.util.function.Function;

/**
 * One broker setting: its name (as in the config file), how its text is parsed and checked, its
 * default and what it means. The environment variable is {@code BROOK_} + the name in upper case
 * with dots as underscores ({@code grpc.listen} → {@code BROOK_GRPC_LISTEN}).
 */
public record ConfigKey<T>(String name, String defaultText, Function<String, T> parser, String doc, boolean secret) {

  public String envName() {
    return "BROOK_" + name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /** Parses a value, naming this key and where the value came from when it is bad. */
  public T parse(String text, String source) {
    try {
      return parser.apply(text.trim());
    } catch (RuntimeException e) {
      throw new ConfigException("bad value '" + text + "' for " + name + " (from " + source + "): " + e.getMessage());
    }
  }
}
