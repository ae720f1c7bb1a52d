package io.brook.broker;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The broker's package rules (docs/ARCHITECTURE.md, "Layers"), as ArchUnit rules over the packages
 * under a root: {@code io.brook.broker} for the real code, {@code io.brook.broker.archfixture} for
 * the fixture classes that break each rule on purpose (LayeringFixtureTest). Every rule refuses an
 * empty subject set, so a rule whose packages were renamed away fails instead of passing on nothing.
 *
 * <pre>
 *   adapters   api, http, cli, (kafka)      map a protocol to core calls
 *   core       core                         the service layer both protocols call
 *   domain     topics, groups, delivery, producers, disk, durability, outbound
 *   model      records, errors              the vocabulary every layer may use
 *   storage    storage (storage.chronicle, storage.dump)
 *   cross-cutting: config, security, metrics, server (the composition root)
 * </pre>
 */
final class BrokerLayering {
  static final String[] ADAPTERS = {"api", "http", "cli", "kafka", "forward"};
  static final String[] DOMAIN = {"topics", "groups", "delivery", "producers", "disk", "durability", "outbound"};
  static final String[] MODEL = {"records", "errors"};

  /** The only package that may import Chronicle (net.openhft.*). */
  static final String CHRONICLE_HOME = "storage.chronicle";

  static final String[] PROTOCOL_TYPES = {"io.grpc..", "com.google.protobuf..", "com.google.rpc..", "io.brook.protocol.v1.."};

  /** The packages the rules name, which must have classes on main. */
  static final String[] NAMED_PACKAGES = {"api", "http", "cli", "kafka", "forward", "topics", "groups", "delivery", "producers", "disk",
      "durability", "outbound", "records", "errors", "storage", CHRONICLE_HOME, "config", "security", "metrics", "server"};
  /** Packages the rules name that issue 24's parts bring (core: part 2; storage.dump: part 1). */
  static final String[] ARRIVING_PACKAGES = {"core", "storage.dump"};
  /** Classes the rules name as exceptions. */
  static final String[] NAMED_CLASSES = {"metrics.RpcMetrics", "storage.StorageException"};

  /** Every rule by name, for the tests that run them all. */
  static final Map<String, Function<String, ArchRule>> RULES = rulesByName();

  private BrokerLayering() {}

  private static Map<String, Function<String, ArchRule>> rulesByName() {
    Map<String, Function<String, ArchRule>> rules = new LinkedHashMap<>();
    rules.put("storageImportsNothingAbove", BrokerLayering::storageImportsNothingAbove);
    rules.put("modelImportsNoOtherLayer", BrokerLayering::modelImportsNoOtherLayer);
    rules.put("coreIsCalledOnlyFromAbove", BrokerLayering::coreIsCalledOnlyFromAbove);
    rules.put("adaptersAreUsedOnlyByServer", BrokerLayering::adaptersAreUsedOnlyByServer);
    rules.put("cliIsImportedByNoOtherPackage", BrokerLayering::cliIsImportedByNoOtherPackage);
    rules.put("doorsCallTheCore", BrokerLayering::doorsCallTheCore);
    rules.put("coreIsProtocolNeutral", BrokerLayering::coreIsProtocolNeutral);
    rules.put("adaptersDoNotReachStorage", BrokerLayering::adaptersDoNotReachStorage);
    rules.put("cliReadsStorageOnlyThroughTheDump", BrokerLayering::cliReadsStorageOnlyThroughTheDump);
    rules.put("noProtocolTypeBelowTheAdapters", BrokerLayering::noProtocolTypeBelowTheAdapters);
    rules.put("chronicleOnlyInStorage", BrokerLayering::chronicleOnlyInStorage);
    rules.put("prometheusOnlyInMetrics", BrokerLayering::prometheusOnlyInMetrics);
    rules.put("javaClientOnlyInCli", BrokerLayering::javaClientOnlyInCli);
    rules.put("kafkaClientsOnlyInKafka", BrokerLayering::kafkaClientsOnlyInKafka);
    rules.put("noPackageCycles", BrokerLayering::noPackageCycles);
    return Collections.unmodifiableMap(rules);
  }

  /** Storage depends on no broker package but itself and the model (records, errors). */
  static ArchRule storageImportsNothingAbove(String root) {
    return noClasses().that().resideInAPackage(pkg(root, "storage"))
        .should().dependOnClassesThat(brokerOutside(root, "storage", "records", "errors"))
        .allowEmptyShould(false)
        .because("storage is the bottom layer: it may use only records and errors");
  }

  /** The model (records, errors) depends on no other broker package. */
  static ArchRule modelImportsNoOtherLayer(String root) {
    return noClasses().that().resideInAnyPackage(pkgs(root, MODEL))
        .should().dependOnClassesThat(brokerOutside(root, MODEL))
        .allowEmptyShould(false)
        .because("records and errors are the vocabulary every layer uses, so they use no layer");
  }

  /** Nothing below the core (domain, model, storage, config) calls up into it. */
  static ArchRule coreIsCalledOnlyFromAbove(String root) {
    return noClasses().that().resideInAnyPackage(pkgs(root, concat(DOMAIN, MODEL, new String[] {"storage", "config"})))
        .should().dependOnClassesThat().resideInAPackage(pkg(root, "core"))
        .allowEmptyShould(false)
        .because("the core is called by the adapters and wired by server; the layers below it do not call it");
  }

  /**
   * Adapters are used only by the composition root (server) and by each other. The cli is among
   * them: the jar's main class, cli.BrookCli, is inside it, so nothing else needs it.
   */
  static ArchRule adaptersAreUsedOnlyByServer(String root) {
    return noClasses().that().resideOutsideOfPackages(pkgs(root, concat(ADAPTERS, new String[] {"server"})))
        .should().dependOnClassesThat().resideInAnyPackage(pkgs(root, ADAPTERS))
        .allowEmptyShould(false)
        .because("no layer below a protocol door may depend on one; server wires them");
  }

  /** The cli is the jar's entry point (cli.BrookCli): no other package imports it. */
  static ArchRule cliIsImportedByNoOtherPackage(String root) {
    return noClasses().that().resideOutsideOfPackage(pkg(root, "cli"))
        .should().dependOnClassesThat().resideInAPackage(pkg(root, "cli"))
        .allowEmptyShould(false)
        .because("the cli is a client of the broker that happens to share its jar; the broker never calls it");
  }

  /**
   * The protocol doors (api, kafka) and the cli call the core; they do not reach into the domain.
   * They may name the domain's values the core's API takes and returns (records, enums, and sealed
   * interfaces whose cases are records: a group's view, a settlement, a join's result), which hold
   * no behaviour a door could call past the core. Left out: http, whose stats and health pages only
   * read the domain's counters; and outbound, the per-connection budget of answer bytes that every
   * door spends while it writes to its socket.
   */
  static ArchRule doorsCallTheCore(String root) {
    return noClasses().that().resideInAnyPackage(pkgs(root, "api", "kafka", "cli", "forward"))
        .should().dependOnClassesThat(resideInAnyPackage(pkgs(root, without(DOMAIN, "outbound")))
            .and(not(DOMAIN_VALUE)).as("domain classes other than values (records, enums, sealed interfaces of records)"))
        .allowEmptyShould(false)
        .because("both protocols must reach the same checks, errors and metrics, which live in the core");
  }

  /**
   * A value: a record, an enum, or a sealed interface whose permitted cases are all records; or a
   * refusal (a RuntimeException such as groups.MemberFaultException), which a door only turns into
   * its protocol's error.
   */
  static final DescribedPredicate<JavaClass> DOMAIN_VALUE = DescribedPredicate.describe("a value type",
      c -> c.isRecord() || c.isEnum() || (c.isInterface() && c.reflect().isSealed()
          && Arrays.stream(c.reflect().getPermittedSubclasses()).allMatch(Class::isRecord))
          || c.isAssignableTo(RuntimeException.class));

  /** The core exists, speaks no protocol and calls no adapter. */
  static ArchRule coreIsProtocolNeutral(String root) {
    return noClasses().that().resideInAPackage(pkg(root, "core"))
        .should().dependOnClassesThat().resideInAnyPackage(concat(PROTOCOL_TYPES, pkgs(root, ADAPTERS)))
        .allowEmptyShould(false)
        .because("gRPC and Kafka call the same core in Brook's own types");
  }

  /** The gRPC and HTTP doors (and later kafka) do not reach into storage: they go through the core. */
  static ArchRule adaptersDoNotReachStorage(String root) {
    return noClasses().that().resideInAnyPackage(pkgs(root, "api", "http", "kafka", "forward"))
        .should().dependOnClassesThat().resideInAPackage(pkg(root, "storage"))
        .allowEmptyShould(false)
        .because("adapters go through the core, which owns the checks done before storage");
  }

  /**
   * The cli reads storage only through storage.dump (the offline dump reads a data directory
   * without a broker) and StorageException (what a broker that fails to start prints).
   */
  static ArchRule cliReadsStorageOnlyThroughTheDump(String root) {
    DescribedPredicate<JavaClass> allowed = resideInAPackage(pkg(root, "storage.dump"))
        .or(nameMatching(Pattern.quote(root + ".storage.StorageException")));
    return noClasses().that().resideInAPackage(pkg(root, "cli"))
        .should().dependOnClassesThat(resideInAPackage(pkg(root, "storage")).and(not(allowed))
            .as("storage classes other than storage.dump and StorageException"))
        .allowEmptyShould(false)
        .because("the cli is a client of the broker; only its offline dump opens a data directory");
  }

  /**
   * No gRPC, protobuf or brook.v1 type below the adapters. Exceptions, each a gRPC concern by
   * nature: security (a ServerInterceptor that authenticates every call, TLS server credentials,
   * and the rules that authorize each proto method by its request), metrics.RpcMetrics (a
   * ServerInterceptor that counts every call by method and status) and server (builds and starts
   * the gRPC server). A Kafka door will need a protocol-neutral part of security.
   */
  static ArchRule noProtocolTypeBelowTheAdapters(String root) {
    DescribedPredicate<JavaClass> excepted = resideInAnyPackage(pkgs(root, "security", "server"))
        .or(nameMatching(Pattern.quote(root + ".metrics.RpcMetrics") + "(\\$.*)?"));
    return noClasses().that().resideOutsideOfPackages(pkgs(root, ADAPTERS)).and(not(excepted))
        .should().dependOnClassesThat().resideInAnyPackage(PROTOCOL_TYPES)
        .allowEmptyShould(false)
        .because("the core and everything under it speak Brook's own types, so a second protocol can call them");
  }

  /** Chronicle (net.openhft.*) only in {@link #CHRONICLE_HOME}. */
  static ArchRule chronicleOnlyInStorage(String root) {
    return noClasses().that().resideOutsideOfPackage(pkg(root, CHRONICLE_HOME))
        .should().dependOnClassesThat().resideInAPackage("net.openhft..")
        .allowEmptyShould(false)
        .because("the storage engine is the one place that knows Chronicle");
  }

  /**
   * Prometheus (io.prometheus.*) only in metrics; http serves the scrape through
   * metrics.BrokerMetrics, without naming a Prometheus type.
   */
  static ArchRule prometheusOnlyInMetrics(String root) {
    return noClasses().that().resideOutsideOfPackage(pkg(root, "metrics"))
        .should().dependOnClassesThat().resideInAPackage("io.prometheus..")
        .allowEmptyShould(false)
        .because("metrics is the one place that knows the metrics library");
  }

  /** The Java client (io.brook.client.*) only in cli, whose produce and consume commands run on it. */
  static ArchRule javaClientOnlyInCli(String root) {
    return noClasses().that().resideOutsideOfPackage(pkg(root, "cli"))
        .should().dependOnClassesThat().resideInAPackage("io.brook.client..")
        .allowEmptyShould(false)
        .because("the broker does not call itself through its client; only the command-line tool does");
  }

  /**
   * kafka-clients (org.apache.kafka.*) only in kafka and its subpackages: its generated message
   * classes are not Kafka's public API and change between releases (D44), so one package holds them;
   * and in forward, whose routes send to Kafka with kafka-clients' producer (D68).
   */
  static ArchRule kafkaClientsOnlyInKafka(String root) {
    return noClasses().that().resideOutsideOfPackages(pkg(root, "kafka"), pkg(root, "forward"))
        .should().dependOnClassesThat().resideInAPackage("org.apache.kafka..")
        .allowEmptyShould(false)
        .because("the pinned kafka-clients codec stays behind one package, so an upgrade touches only it");
  }

  /** No cycle between the broker's top-level packages (a subpackage counts with its parent). */
  static ArchRule noPackageCycles(String root) {
    return slices().matching(root + ".(*)..").namingSlices("$1")
        .should().beFreeOfCycles()
        .allowEmptyShould(false)
        .because("packages depend downwards only");
  }

  private static String pkg(String root, String name) {
    return root + "." + name + "..";
  }

  private static String[] pkgs(String root, String... names) {
    return Arrays.stream(names).map(n -> pkg(root, n)).toArray(String[]::new);
  }

  /** A class of the broker (under root) outside the given packages. */
  private static DescribedPredicate<JavaClass> brokerOutside(String root, String... allowed) {
    return resideInAPackage(root + "..").and(not(resideInAnyPackage(pkgs(root, allowed))))
        .as("broker classes outside " + String.join(", ", allowed));
  }

  private static String[] without(String[] names, String left) {
    return Arrays.stream(names).filter(n -> !n.equals(left)).toArray(String[]::new);
  }

  private static String[] concat(String[]... parts) {
    return Arrays.stream(parts).flatMap(Arrays::stream).toArray(String[]::new);
  }
}
