package io.brook.broker.server;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.netty.handler.codec.http2.Http2Exception;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.slf4j.LoggerFactory;

/**
 * gRPC logs through java.util.logging, with a stack trace, two things that are a client's doing
 * and already answered: a stream reset while the broker still wrote to it (the client cancelled, or
 * its deadline passed), and a message over max.request.bytes (answered RESOURCE_EXHAUSTED). Like
 * every other mistake of a client (see api.Errors) they go to the debug log only, as one line;
 * everything else gRPC logs passes as before.
 */
final class GrpcLogs {
  /** Held: java.util.logging keeps loggers only weakly, and a new root logger would lose the filter. */
  private static final Logger ROOT = Logger.getLogger("");
  private static final org.slf4j.Logger log = LoggerFactory.getLogger(GrpcLogs.class);

  private GrpcLogs() {}

  static void quietClientMistakes() {
    for (Handler h : ROOT.getHandlers()) {
      h.setFilter(GrpcLogs::pass);
    }
  }

  private static boolean pass(LogRecord record) {
    Throwable t = record.getThrown();
    if (t instanceof Http2Exception.StreamException) {
      log.debug("A client's stream ended while the broker wrote to it: {}", t.getMessage());
      return false;
    }
    if (t instanceof StatusRuntimeException s && s.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED) {
      log.debug("Refused a request: {} (max.request.bytes)", s.getStatus().getDescription());
      return false;
    }
    return true;
  }
}
