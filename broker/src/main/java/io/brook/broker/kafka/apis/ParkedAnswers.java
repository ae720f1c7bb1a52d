package io.brook.broker.kafka.apis;

import io.brook.broker.core.ParkedCall;
import io.brook.broker.kafka.KafkaRequest;
import io.brook.broker.groups.MemberFault;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.common.protocol.ApiMessage;

/** What the classic group handlers share: answers parked at the broker, and faults as Kafka codes. */
final class ParkedAnswers {
  private ParkedAnswers() {}

  /**
   * The call's answer as a response. When the connection closes first, the call is cancelled: the
   * member stays in its group (a Kafka client reconnects and rejoins with its id), it just waits no more.
   */
  static <T> CompletableFuture<ApiMessage> of(KafkaRequest request, ParkedCall<T> call,
      Function<T, ApiMessage> response) {
    Runnable cancel = call.cancel();
    request.connection().onClose(cancel);
    return call.answer().thenApply(answer -> {
      request.connection().removeOnClose(cancel);
      return response.apply(answer);
    });
  }

  /** A fault's Kafka code (GroupErrors.of); NONE for null. */
  static short code(MemberFault fault) {
    return GroupErrors.of(fault).code();
  }

  /** The client's address as Kafka's describe shows it ("/127.0.0.1"). */
  static String host(KafkaRequest request) {
    return "/" + request.remote().getAddress().getHostAddress();
  }
}
