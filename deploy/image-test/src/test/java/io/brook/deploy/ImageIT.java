package io.brook.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.DockerClient;
import io.brook.client.Serdes;
import io.brook.client.admin.BrookAdmin;
import io.brook.client.admin.NewTopic;
import io.brook.client.consumer.BrookConsumer;
import io.brook.client.consumer.ConsumerConfig;
import io.brook.client.consumer.ConsumerRecord;
import io.brook.client.consumer.OffsetResetStrategy;
import io.brook.client.producer.BrookProducer;
import io.brook.client.producer.ProducerConfig;
import io.brook.client.producer.ProducerRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.startupcheck.StartupCheckStrategy;
import org.testcontainers.utility.DockerImageName;

/**
 * The container image end to end: started as Kubernetes would run it (non-root, read-only root, a
 * volume for the data), used through the Java client, stopped with SIGTERM (exit 0), started again
 * on the same volume with its records and committed offsets, and checked by the chart's own
 * {@code helm test} script run in a second container of the image.
 */
class ImageIT {
  private static final DockerImageName IMAGE = image();
  private static final Path TEST_SCRIPT = Path.of(System.getProperty("brook.test.script", ""));

  private final DockerClient docker = DockerClientFactory.instance().client();
  private final String volume = "brook-image-it-" + UUID.randomUUID();
  private final List<GenericContainer<?>> started = new ArrayList<>();

  static DockerImageName image() {
    String name = System.getProperty("brook.image", "");
    if (name.isBlank()) {
      throw new IllegalStateException("no image to test: run scripts/docker-test.sh, which builds it and sets "
          + "-Dbrook.image");
    }
    return DockerImageName.parse(name);
  }

  @BeforeEach
  void createVolume() {
    docker.createVolumeCmd().withName(volume).exec();
  }

  @AfterEach
  void removeContainersAndVolume() {
    started.forEach(GenericContainer::stop);
    docker.removeVolumeCmd(volume).exec();
  }

  @Test
  void servesRunsAsNonRootStopsCleanlyAndKeepsItsDataAcrossRestarts() throws Exception {
    BrookContainer first = start(new BrookContainer(IMAGE, volume));
    assertThat(first.execInContainer("id", "-u").getStdout().trim()).as("uid in the container").isEqualTo("10001");
    assertThat(first.httpStatus("/healthz")).isEqualTo(200);
    assertThat(first.getLogs()).contains("data in /var/lib/brook");

    try (BrookAdmin admin = BrookAdmin.create(first.address())) {
      admin.createTopic(NewTopic.of("orders").withPartitions(3));
    }
    List<String> sent = produce(first.address(), 0, 1000);
    assertThat(consume(first.address(), "billing", sent.size())).containsExactlyInAnyOrderElementsOf(sent);
    assertThat(first.httpBody("/metrics"))
        .contains("brook_produced_records_total{topic=\"orders\"} 1000.0");

    assertThat(stopWithSigterm(first)).as("exit code after SIGTERM").isZero();
    assertThat(first.getLogs()).contains("SIGTERM received").contains("Brook stopped");

    // the same container started again (docker restart), then a new one on the volume (a new pod)
    docker.startContainerCmd(first.getContainerId()).exec();
    awaitReady(first);
    assertThat(first.getLogs()).contains("Recovered 1 topics, 3 partitions, 1000 records");
    assertThat(consume(first.address(), "restarted", sent.size())).containsExactlyInAnyOrderElementsOf(sent);
    assertThat(stopWithSigterm(first)).as("exit code after the second SIGTERM").isZero();

    BrookContainer second = start(new BrookContainer(IMAGE, volume));
    assertThat(second.getLogs()).contains("Recovered 1 topics, 3 partitions, 1000 records");
    assertThat(consume(second.address(), "audit", sent.size())).as("a new group reads every record again")
        .containsExactlyInAnyOrderElementsOf(sent);
    List<String> more = produce(second.address(), 1000, 10);
    assertThat(consume(second.address(), "billing", more.size()))
        .as("billing's committed offsets survived the restart: it reads only the new records")
        .containsExactlyInAnyOrderElementsOf(more);

    // the chart's helm test, as its pod runs it, against this container
    ScriptRun test = runTestScript(second.address());
    assertThat(test.exitCode()).as("helm test script's exit code; its output:\n" + test.output()).isZero();
    assertThat(test.output()).contains("test-produce-consume: ok");
  }

  @Test
  void theHelmTestScriptFailsWhenNoBrokerAnswers() {
    ScriptRun test = runTestScript("127.0.0.1:1");
    assertThat(test.exitCode()).as("exit code; output:\n" + test.output()).isNotZero();
    assertThat(test.output()).contains("cannot reach the broker at 127.0.0.1:1");
  }

  @Test
  void withTlsAndTokensTheHelmTestScriptPassesWithTheTokenAndIsRefusedWithout(@TempDir Path tmp) throws Exception {
    SecureFiles secure = new SecureFiles(tmp);
    BrookContainer broker = start(new BrookContainer(IMAGE, volume, secure));
    assertThat(broker.getLogs()).contains("Security: TLS on").contains("auth on");
    assertThat(broker.httpStatus("/metrics")).as("/metrics over HTTPS without a token").isEqualTo(401);

    ScriptRun withToken = runTestScript(broker.address(), secure, "token");
    assertThat(withToken.exitCode()).as("exit code; output:\n" + withToken.output()).isZero();
    assertThat(withToken.output()).contains("test-produce-consume: ok");

    ScriptRun noToken = runTestScript(broker.address(), secure, null);
    assertThat(noToken.exitCode()).as("exit code without a token; output:\n" + noToken.output()).isNotZero();
    assertThat(noToken.output()).contains("no bearer token or client certificate");
  }

  /**
   * The pod the chart's StatefulSet makes (release "brook"), started as Kubernetes starts it with
   * service links on (as before the chart turned them off, or from a manifest of one's own): the
   * container's environment and properties file from the rendered chart, plus the service-link
   * variables the kubelet adds for the chart's Services (BROOK_PORT=tcp://..., BROOK_SERVICE_HOST,
   * ...). The broker must set those aside, become ready and serve.
   */
  @Test
  void startsAndServesWithTheEnvironmentOfTheChartsPod(@TempDir Path tmp) throws Exception {
    ChartPod pod = ChartPod.rendered();
    assertThat(pod.serviceNames()).as("the chart's Services").containsExactlyInAnyOrder("brook", "brook-headless");
    Map<String, String> links = pod.serviceLinks();
    assertThat(links).as("the client Service's links").containsKeys("BROOK_SERVICE_HOST", "BROOK_SERVICE_PORT",
        "BROOK_SERVICE_PORT_GRPC", "BROOK_SERVICE_PORT_HTTP", "BROOK_PORT", "BROOK_PORT_7070_TCP",
        "BROOK_PORT_7070_TCP_PROTO", "BROOK_PORT_7070_TCP_PORT", "BROOK_PORT_7070_TCP_ADDR", "BROOK_PORT_7080_TCP",
        "BROOK_SERVICE_PORT_KAFKA", "BROOK_PORT_9092_TCP", "BROOK_PORT_9092_TCP_ADDR");
    Map<String, String> podEnv = pod.containerEnv();
    assertThat(podEnv).as("the Kafka listener of the chart's pod: all interfaces, the Service's in-cluster name")
        .containsEntry("BROOK_KAFKA_LISTEN", "0.0.0.0:9092")
        .containsEntry("BROOK_KAFKA_ADVERTISED", "brook.brook.svc.cluster.local:9092");
    assertThat(pod.mountPaths()).as("what the pod mounts, which this test provides")
        .containsExactlyInAnyOrder("/var/lib/brook", "/tmp", "/etc/brook/config");

    Path config = Files.createDirectories(tmp.resolve("config"));
    Files.writeString(config.resolve("brook.properties"), pod.propertiesFile());
    Files.setPosixFilePermissions(config.resolve("brook.properties"), PosixFilePermissions.fromString("rw-r--r--"));
    Files.setPosixFilePermissions(config, PosixFilePermissions.fromString("rwxr-xr-x"));
    Map<String, String> env = new HashMap<>(links);
    env.putAll(podEnv); // the container's own variables win over links, as in Kubernetes
    // host network: the listeners stay on the loopback ports BrookContainer picked, not the chart's 0.0.0.0
    env.remove("BROOK_GRPC_LISTEN");
    env.remove("BROOK_HTTP_LISTEN");
    env.remove("BROOK_KAFKA_LISTEN");
    if (!BrookContainer.KAFKA_LISTENER) {
      env.remove("BROOK_KAFKA_ADVERTISED"); // a broker without the Kafka listener refuses it
    }
    BrookContainer broker = new BrookContainer(IMAGE, volume);
    broker.withEnv(env).withFileSystemBind(config.toString(), "/etc/brook/config", BindMode.READ_ONLY);
    start(broker);

    long brookLinks = links.keySet().stream().filter(k -> k.startsWith("BROOK_")).count();
    assertThat(broker.getLogs()).contains("Ignored " + brookLinks + " Kubernetes service-link variables of "
        + "Service brook, not broker settings: BROOK_PORT, ");
    assertThat(broker.httpStatus("/readyz")).isEqualTo(200);
    try (BrookAdmin admin = BrookAdmin.create(broker.address())) {
      admin.createTopic(NewTopic.of("orders").withPartitions(1));
    }
    List<String> sent = produce(broker.address(), 0, 10);
    assertThat(consume(broker.address(), "linked", sent.size())).containsExactlyElementsOf(sent);
  }

  private <C extends GenericContainer<?>> C start(C container) {
    started.add(container);
    container.start();
    return container;
  }

  private static void awaitReady(BrookContainer broker) throws InterruptedException {
    long deadline = System.nanoTime() + BrookContainer.READY_TIMEOUT.toNanos();
    while (broker.httpStatus("/readyz") != 200) {
      assertThat(System.nanoTime() - deadline).as("/readyz of the restarted container within "
          + BrookContainer.READY_TIMEOUT).isNegative();
      Thread.sleep(100);
    }
  }

  private long stopWithSigterm(GenericContainer<?> container) {
    docker.stopContainerCmd(container.getContainerId()).withTimeout(60).exec();
    return docker.inspectContainerCmd(container.getContainerId()).exec().getState().getExitCodeLong();
  }

  record ScriptRun(long exitCode, String output) {}

  /**
   * Runs the helm test pod's script as its pod does: the image, the script mounted read-only (the
   * pod mounts it from a ConfigMap), a read-only root with a tmpfs at /tmp. Waits for it to exit.
   */
  private ScriptRun runTestScript(String broker) {
    return runTestScript(broker, null, null);
  }

  /** With {@code secure}: its CA trusted (BROOK_TLS_CA) and, unless null, the token file named. */
  private ScriptRun runTestScript(String broker, SecureFiles secure, String tokenFile) {
    assertThat(Files.isRegularFile(TEST_SCRIPT)).as("the helm test script at " + TEST_SCRIPT).isTrue();
    GenericContainer<?> c = new GenericContainer<>(IMAGE);
    c.withNetworkMode("host")
        .withEnv("BROOK_BROKER", broker)
        .withFileSystemBind(TEST_SCRIPT.getParent().toString(), "/scripts", BindMode.READ_ONLY)
        .withTmpFs(Map.of("/tmp", "rw"))
        .withCreateContainerCmdModifier(cmd -> {
          cmd.withEntrypoint("sh", "/scripts/" + TEST_SCRIPT.getFileName());
          cmd.getHostConfig().withReadonlyRootfs(true);
        })
        .withStartupCheckStrategy(new ExitedStartupCheck().withTimeout(Duration.ofSeconds(120)));
    if (secure != null) {
      c.withFileSystemBind(secure.dir.toString(), "/etc/brook/secure", BindMode.READ_ONLY)
          .withEnv("BROOK_TLS_CA", "/etc/brook/secure/ca.crt");
      if (tokenFile != null) {
        c.withEnv("BROOK_TOKEN_FILE", "/etc/brook/secure/" + tokenFile);
      }
    }
    start(c);
    long exit = docker.inspectContainerCmd(c.getContainerId()).exec().getState().getExitCodeLong();
    return new ScriptRun(exit, c.getLogs());
  }

  /** Started means exited, whatever the exit code: the test reads the code itself. */
  private static final class ExitedStartupCheck extends StartupCheckStrategy {
    @Override
    public StartupStatus checkStartupState(DockerClient docker, String containerId) {
      return Boolean.TRUE.equals(getCurrentState(docker, containerId).getRunning())
          ? StartupStatus.NOT_YET_KNOWN : StartupStatus.SUCCESSFUL;
    }
  }

  private static List<String> produce(String address, int from, int count) {
    List<String> values = new ArrayList<>();
    ProducerConfig config = ProducerConfig.builder().broker(address).build();
    try (BrookProducer<String, String> producer =
        new BrookProducer<>(config, Serdes.stringSerializer(), Serdes.stringSerializer())) {
      for (int i = from; i < from + count; i++) {
        values.add("order-" + i);
        producer.send(new ProducerRecord<>("orders", "customer-" + (i % 7), "order-" + i));
      }
      producer.flush();
    }
    return values;
  }

  /** Reads as a member of the group until it has {@code expected} records and 1 s more brought none. */
  private static List<String> consume(String address, String group, int expected) {
    ConsumerConfig config = ConsumerConfig.builder().broker(address).groupId(group)
        .autoOffsetReset(OffsetResetStrategy.EARLIEST).build();
    List<String> got = new ArrayList<>();
    try (BrookConsumer<String, String> consumer =
        new BrookConsumer<>(config, Serdes.stringDeserializer(), Serdes.stringDeserializer())) {
      consumer.subscribe(List.of("orders"));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      int quietPolls = 0;
      while (System.nanoTime() < deadline && (got.size() < expected || quietPolls < 5)) {
        var records = consumer.poll(Duration.ofMillis(200));
        quietPolls = records.isEmpty() ? quietPolls + 1 : 0;
        for (ConsumerRecord<String, String> r : records) {
          got.add(r.value());
        }
      }
      consumer.commitSync();
    }
    return got;
  }
}
