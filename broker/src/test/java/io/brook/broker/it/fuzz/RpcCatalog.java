package io.brook.broker.it.fuzz;

import com.google.protobuf.Descriptors;
import io.brook.protocol.v1.ProduceServiceGrpc;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.protobuf.ProtoMethodDescriptorSupplier;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Every RPC of the brook.v1 contract, found without a hand-written list: the generated
 * {@code io.brook.protocol.v1.*Grpc} classes are listed from the protocol's classes (directory or
 * jar), and each gives its service descriptor, whose methods carry the protobuf input types. A new
 * service or RPC in the .proto is picked up by the next build.
 */
final class RpcCatalog {
  private static final String PACKAGE = ProduceServiceGrpc.class.getPackageName();

  /** One RPC: its gRPC name and kind, and the protobuf type of its requests. */
  record Rpc(String fullName, MethodDescriptor.MethodType type, Descriptors.Descriptor input) {
    String shortName() {
      return fullName.substring(fullName.indexOf('.', "brook.".length()) + 1);
    }
  }

  private RpcCatalog() {}

  static List<Rpc> fromGeneratedCode() throws Exception {
    List<Rpc> rpcs = new ArrayList<>();
    for (String className : grpcClassNames()) {
      ServiceDescriptor service = (ServiceDescriptor) Class.forName(className)
          .getMethod("getServiceDescriptor").invoke(null);
      for (MethodDescriptor<?, ?> m : service.getMethods()) {
        if (!(m.getSchemaDescriptor() instanceof ProtoMethodDescriptorSupplier s)) {
          throw new AssertionError(m.getFullMethodName() + " has no protobuf schema: it cannot be fuzzed");
        }
        rpcs.add(new Rpc(m.getFullMethodName(), m.getType(), s.getMethodDescriptor().getInputType()));
      }
    }
    rpcs.sort((a, b) -> a.fullName().compareTo(b.fullName()));
    return rpcs;
  }

  /** Class names ending in Grpc in the protocol's package, from wherever its classes are. */
  private static List<String> grpcClassNames() throws IOException, URISyntaxException {
    Path root = Path.of(ProduceServiceGrpc.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    String dir = PACKAGE.replace('.', '/');
    if (Files.isDirectory(root)) {
      return grpcClassNames(root.resolve(dir));
    }
    try (FileSystem jar = FileSystems.newFileSystem(root, Map.of())) {
      return grpcClassNames(jar.getPath(dir));
    }
  }

  private static List<String> grpcClassNames(Path packageDir) throws IOException {
    try (Stream<Path> files = Files.list(packageDir)) {
      return files.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith("Grpc.class"))
          .map(n -> PACKAGE + "." + n.substring(0, n.length() - ".class".length()))
          .sorted()
          .toList();
    }
  }

  /** The brook.* services the broker serves, asked through its reflection service. */
  static Set<String> servedServices(Channel channel) throws Exception {
    CompletableFuture<Set<String>> names = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(channel)
        .serverReflectionInfo(new StreamObserver<>() {
          final Set<String> found = new TreeSet<>();

          @Override
          public void onNext(ServerReflectionResponse r) {
            r.getListServicesResponse().getServiceList().forEach(s -> {
              if (s.getName().startsWith("brook.")) {
                found.add(s.getName());
              }
            });
          }

          @Override
          public void onError(Throwable t) {
            names.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {
            names.complete(found);
          }
        });
    requests.onNext(ServerReflectionRequest.newBuilder().setListServices("*").build());
    requests.onCompleted();
    return names.get(10, TimeUnit.SECONDS);
  }
}
