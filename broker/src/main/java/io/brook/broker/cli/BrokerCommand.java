package io.brook.broker.cli;

import io.brook.broker.config.BrokerConfig;
import io.brook.broker.config.BrokerKeys;
import io.brook.broker.config.ConfigException;
import io.brook.broker.server.Broker;
import io.brook.broker.storage.StorageException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code brook broker}: runs the broker in the foreground until SIGTERM or Ctrl-C, then stops it and exits 0. */
@Command(name = "broker", mixinStandardHelpOptions = true,
    description = "Run the broker. Settings: defaults < --config file < BROOK_* environment < flags.")
final class BrokerCommand implements Callable<Integer> {
  private static final Logger log = LoggerFactory.getLogger(BrokerCommand.class);

  @Option(names = "--config", paramLabel = "FILE", description = "A properties file of broker settings "
      + "(default: $BROOK_CONFIG if set).")
  Path configFile;

  @Option(names = "--data-dir", paramLabel = "DIR", description = "Data directory (data.dir, default ./data).")
  String dataDir;

  @Option(names = "--grpc-listen", paramLabel = "HOST:PORT",
      description = "gRPC listen address (grpc.listen, default localhost:7070).")
  String grpcListen;

  @Option(names = "--http-listen", paramLabel = "HOST:PORT",
      description = "HTTP listen address for /healthz, /readyz, /metrics, /stats (http.listen, default "
          + "localhost:7080).")
  String httpListen;

  @Option(names = "--kafka-listen", paramLabel = "HOST:PORT",
      description = "Kafka protocol listen address (kafka.listen, default localhost:9092; empty: off).")
  String kafkaListen;

  @Option(names = {"-s", "--set"}, paramLabel = "KEY=VALUE", description = "Any broker setting, e.g. --set "
      + "default.partitions=3. Repeatable.")
  Map<String, String> settings = new LinkedHashMap<>();

  @Override
  public Integer call() throws Exception {
    Map<String, String> flags = new LinkedHashMap<>(settings);
    if (dataDir != null) {
      flags.put(BrokerKeys.DATA_DIR.name(), dataDir);
    }
    if (grpcListen != null) {
      flags.put(BrokerKeys.GRPC_LISTEN.name(), grpcListen);
    }
    if (httpListen != null) {
      flags.put(BrokerKeys.HTTP_LISTEN.name(), httpListen);
    }
    if (kafkaListen != null) {
      flags.put(BrokerKeys.KAFKA_LISTEN.name(), kafkaListen);
    }
    Path file = configFile;
    if (file == null && System.getenv("BROOK_CONFIG") != null) {
      file = Path.of(System.getenv("BROOK_CONFIG"));
    }
    Broker broker;
    try {
      broker = Broker.start(BrokerConfig.resolve(file, System.getenv(), flags));
    } catch (ConfigException e) {
      System.err.println("brook broker: " + e.getMessage());
      return BrookCli.EXIT_USAGE;
    } catch (StorageException e) {
      System.err.println("brook broker: " + e.getMessage());
      return BrookCli.EXIT_REFUSED;
    } catch (java.net.BindException e) { // a port in use: the operator's to fix, no stack trace
      System.err.println("brook broker: " + e.getMessage());
      return BrookCli.EXIT_REFUSED;
    }
    TermSignal signal = new TermSignal();
    // Any other way the JVM ends (System.exit elsewhere, SIGHUP) still closes the broker.
    Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "brook-shutdown"));
    String name = signal.await();
    log.info("{} received: stopping", name);
    broker.close();
    return 0;
  }
}
