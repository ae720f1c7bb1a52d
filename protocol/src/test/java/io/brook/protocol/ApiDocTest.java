package io.brook.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.Descriptors.MethodDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/API.md is the reference of what ships, so it must name every RPC of the contract and nothing
 * the contract lacks. Its conventions, which this test holds it to (API.md states them at its top):
 * each RPC has exactly one heading {@code #### `Service.Method`}; an RPC named anywhere else as
 * {@code Service.Method}, {@code brook.v1.Service/Method} or {@code rpc Method(} exists; and every
 * CamelCase name in backticks is a service, RPC, message or enum of brook.v1, or one of the few
 * outside names listed here.
 */
class ApiDocTest {
  static final Path DOC = Path.of("../docs/API.md");
  static final Path PROTOS = Path.of("src/main/proto/brook/v1");
  /** Names from outside brook.v1 that API.md may put in backticks. */
  static final Set<String> OUTSIDE_NAMES = Set.of(
      "ErrorInfo", "RetryInfo", // google.rpc details the broker sends
      "CreateTime", "LogAppendTime"); // values of the topic config key message.timestamp.type

  private static final Pattern HEADING = Pattern.compile("^#### `(\\w+)\\.(\\w+)`$");
  private static final Pattern QUALIFIED = Pattern.compile("\\b([A-Z]\\w*Service)[./]([A-Za-z]\\w*)");
  private static final Pattern RPC_LINE = Pattern.compile("\\brpc\\s+(\\w+)\\s*\\(");
  private static final Pattern BACKTICKED_NAME = Pattern.compile("`([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)*)`");

  @Test
  void everyRpcOfTheContractHasOneSectionAndTheDocNamesNoOtherRpc() throws Exception {
    Contract contract = Contract.load();
    assertThat(contract.rpcs).as("RPCs found in %s", PROTOS).isNotEmpty();
    List<String> lines = Files.readAllLines(DOC);
    List<String> problems = new ArrayList<>();

    TreeMap<String, Integer> sections = new TreeMap<>();
    for (String line : lines) {
      Matcher h = HEADING.matcher(line);
      if (h.matches()) {
        sections.merge(h.group(1) + "." + h.group(2), 1, Integer::sum);
      }
    }
    for (String rpc : contract.rpcs) {
      if (!sections.containsKey(rpc)) {
        problems.add("no section \"#### `" + rpc + "`\" for the RPC " + rpc + " of the contract");
      }
    }
    sections.forEach((rpc, count) -> {
      if (!contract.rpcs.contains(rpc)) {
        problems.add("a section \"#### `" + rpc + "`\", but the contract has no RPC " + rpc);
      } else if (count > 1) {
        problems.add(count + " sections \"#### `" + rpc + "`\": one per RPC");
      }
    });

    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      String where = "line " + (i + 1) + ": ";
      Matcher q = QUALIFIED.matcher(line);
      while (q.find()) {
        String service = q.group(1);
        if (!contract.services.contains(service)) {
          problems.add(where + service + " is no service of the contract");
        } else if (!contract.rpcs.contains(service + "." + q.group(2))) {
          problems.add(where + service + " has no RPC " + q.group(2));
        }
      }
      Matcher r = RPC_LINE.matcher(line);
      while (r.find()) {
        if (!contract.methods.contains(r.group(1))) {
          problems.add(where + "rpc " + r.group(1) + " is no RPC of the contract");
        }
      }
      Matcher n = BACKTICKED_NAME.matcher(line);
      while (n.find()) {
        String name = n.group(1);
        if (!contract.names.contains(name) && !OUTSIDE_NAMES.contains(name)) {
          problems.add(where + "`" + name + "` is no service, RPC, message or enum of brook.v1 (an outside name "
              + "belongs in ApiDocTest.OUTSIDE_NAMES)");
        }
      }
    }
    assertThat(problems).as("docs/API.md against the .proto files").isEmpty();
  }

  /** What the .proto files define, read from their descriptors (the generated classes). */
  private static final class Contract {
    final Set<String> services = new TreeSet<>();
    /** Service.Method. */
    final Set<String> rpcs = new TreeSet<>();
    /** Bare method names. */
    final Set<String> methods = new TreeSet<>();
    /** Services, methods, messages (nested too) and enums. */
    final Set<String> names = new TreeSet<>();

    static Contract load() throws IOException, ReflectiveOperationException {
      Contract c = new Contract();
      List<Path> files;
      try (Stream<Path> s = Files.list(PROTOS)) {
        files = s.filter(p -> p.toString().endsWith(".proto")).sorted().toList();
      }
      Pattern outer = Pattern.compile("option java_outer_classname = \"(\\w+)\";");
      Pattern pkg = Pattern.compile("option java_package = \"([\\w.]+)\";");
      for (Path file : files) {
        String text = Files.readString(file);
        Matcher o = outer.matcher(text);
        Matcher p = pkg.matcher(text);
        assertThat(o.find() && p.find()).as("%s names its java_package and java_outer_classname", file).isTrue();
        FileDescriptor fd = (FileDescriptor) Class.forName(p.group(1) + "." + o.group(1))
            .getMethod("getDescriptor").invoke(null);
        c.add(fd);
      }
      return c;
    }

    private void add(FileDescriptor fd) {
      for (ServiceDescriptor s : fd.getServices()) {
        services.add(s.getName());
        names.add(s.getName());
        for (MethodDescriptor m : s.getMethods()) {
          rpcs.add(s.getName() + "." + m.getName());
          methods.add(m.getName());
          names.add(m.getName());
        }
      }
      fd.getMessageTypes().forEach(this::addMessage);
      fd.getEnumTypes().forEach(e -> names.add(e.getName()));
    }

    private void addMessage(Descriptor d) {
      names.add(d.getName());
      d.getNestedTypes().forEach(this::addMessage);
      for (EnumDescriptor e : d.getEnumTypes()) {
        names.add(e.getName());
      }
    }
  }
}
