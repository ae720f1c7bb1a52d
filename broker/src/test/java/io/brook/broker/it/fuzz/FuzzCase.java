package io.brook.broker.it.fuzz;

import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import io.brook.broker.it.fuzz.RawCall.Ending;
import io.brook.broker.it.fuzz.RpcCatalog.Rpc;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * One fuzzed call: which RPC, the bytes of each message, and how the client ends. Made from its own
 * seed alone, so any case can be made again from (run seed, iteration) without the ones before it.
 */
record FuzzCase(int iteration, Rpc rpc, Kind kind, List<byte[]> messages, Ending ending, long cancelAfterMs) {

  enum Kind {
    /** Random but well-formed messages. */
    VALID,
    /** Well-formed messages, broken on the wire. */
    MUTATED,
    /** Unary calls with no request or two; streams that send nothing. */
    WRONG_COUNT
  }

  static FuzzCase make(long runSeed, int iteration, List<Rpc> rpcs) {
    Random random = new Random(runSeed ^ (iteration * 0x9E3779B97F4A7C15L));
    Rpc rpc = rpcs.get(iteration % rpcs.size()); // round robin: every RPC gets its share
    MessageGenerator generator = new MessageGenerator(random);
    WireMutator mutator = new WireMutator(random);
    int k = random.nextInt(20);
    Kind kind = k < 9 ? Kind.VALID : k < 18 ? Kind.MUTATED : Kind.WRONG_COUNT;
    boolean oneRequest = rpc.type().clientSendsOneMessage();
    int count = switch (kind) {
      case WRONG_COUNT -> oneRequest && random.nextBoolean() ? 2 : 0;
      default -> oneRequest ? 1 : 1 + random.nextInt(6);
    };
    List<byte[]> messages = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      byte[] bytes = generator.message(rpc.input()).toByteArray();
      // MUTATED streams mix broken and whole messages, so a break can come after a good start.
      if (kind == Kind.MUTATED && (oneRequest || i == count - 1 || random.nextBoolean())) {
        bytes = mutator.mutate(bytes);
      }
      messages.add(bytes);
    }
    boolean cancel = random.nextInt(oneRequest ? 20 : 4) == 0;
    return new FuzzCase(iteration, rpc, kind, messages, cancel ? Ending.CANCEL : Ending.HALF_CLOSE,
        random.nextInt(300));
  }

  /** A message as text when it parses, else its first bytes in hex. */
  private String show(byte[] bytes) {
    try {
      return clip(DynamicMessage.parseFrom(rpc.input(), bytes).toString().replace('\n', ' '), 300);
    } catch (InvalidProtocolBufferException e) {
      return "hex " + hex(bytes) + " (does not parse: " + e.getMessage() + ")";
    }
  }

  private static String hex(byte[] b) {
    return HexFormat.of().formatHex(b, 0, Math.min(b.length, 200)) + (b.length > 200 ? "…" : "") + " ("
        + b.length + " bytes)";
  }

  private static String clip(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max) + "…";
  }

  String describe() {
    return "#" + iteration + " " + rpc.fullName() + " " + kind + " " + messages.size() + " message(s), "
        + (ending == Ending.CANCEL ? "cancelled after " + cancelAfterMs + " ms" : "half-closed")
        + messages.stream().map(m -> "\n    " + show(m)).collect(Collectors.joining());
  }
}
