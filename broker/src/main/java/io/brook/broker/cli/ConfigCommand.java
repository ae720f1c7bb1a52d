package io.brook.broker.cli;

import io.brook.broker.config.BrokerKeys;
import io.brook.broker.config.ConfigDocs;
import io.brook.broker.config.ConfigKey;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code brook config}: every broker setting with its default; {@code --markdown} renders docs/CONFIGURATION.md. */
@Command(name = "config", mixinStandardHelpOptions = true,
    description = "List every broker setting with its environment variable and default.")
final class ConfigCommand implements Callable<Integer> {
  @Option(names = "--markdown", description = "Print docs/CONFIGURATION.md (broker, topic and group settings).")
  boolean markdown;

  @Override
  public Integer call() {
    if (markdown) {
      System.out.print(ConfigDocs.markdown());
      return 0;
    }
    for (ConfigKey<?> k : BrokerKeys.ALL) {
      System.out.printf("%-34s %-42s %s%n", k.name(), k.envName(), k.defaultText());
    }
    return 0;
  }
}
