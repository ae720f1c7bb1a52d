package io.brook.broker.cli;

import com.google.rpc.ErrorInfo;
import io.brook.client.errors.BrokerUnavailableException;
import io.brook.client.errors.BrookException;
import io.brook.client.errors.BrookTimeoutException;
import io.brook.client.errors.ConfigException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import picocli.CommandLine;

/** Turns a failed call into one line on stderr and an exit code; no stack traces for expected errors. */
final class ClientErrors implements CommandLine.IExecutionExceptionHandler {
  @Override
  public int handleExecutionException(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
    if (e instanceof BrookException b) {
      return report(cmd, b);
    }
    Throwable t = e;
    while (!(t instanceof StatusRuntimeException) && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof StatusRuntimeException s) {
      return report(cmd, s);
    }
    if (e instanceof CliException c) {
      cmd.getErr().println("brook: " + c.getMessage());
      return c.exitCode();
    }
    cmd.getErr().println("brook: " + e);
    return BrookCli.EXIT_REFUSED;
  }

  static int report(CommandLine cmd, StatusRuntimeException s) {
    Status status = s.getStatus();
    if (status.getCode() == Status.Code.UNAVAILABLE || status.getCode() == Status.Code.DEADLINE_EXCEEDED) {
      cmd.getErr().println("brook: cannot reach the broker at " + BrokerOption.current()
          + " (" + status.getCode() + (status.getDescription() == null ? "" : ": " + status.getDescription())
          + "). Is it running? Start one with 'make run', or pass --broker host:port / set BROOK_BROKER.");
      return BrookCli.EXIT_UNREACHABLE;
    }
    String reason = reason(s);
    cmd.getErr().println("brook: " + status.getDescription() + " (" + (reason.isEmpty() ? status.getCode() : reason) + ")");
    return BrookCli.EXIT_REFUSED;
  }

  /**
   * A typed error of the Java client: the broker could not be reached in time, it refused, or the
   * client refused an option (a usage error).
   */
  static int report(CommandLine cmd, BrookException e) {
    if (e instanceof BrokerUnavailableException || e instanceof BrookTimeoutException) {
      cmd.getErr().println("brook: cannot reach the broker at " + BrokerOption.current() + " (" + e.getMessage()
          + "). Is it running? Start one with 'make run', or pass --broker host:port / set BROOK_BROKER.");
      return BrookCli.EXIT_UNREACHABLE;
    }
    cmd.getErr().println("brook: " + e.getMessage() + " (" + e.reason() + ")");
    return e instanceof ConfigException ? BrookCli.EXIT_USAGE : BrookCli.EXIT_REFUSED;
  }

  /** The ErrorInfo reason of a failed call (an ErrorCode name without ERROR_CODE_), or "" when it has none. */
  static String reason(StatusRuntimeException s) {
    com.google.rpc.Status details = StatusProto.fromThrowable(s);
    if (details != null) {
      for (com.google.protobuf.Any any : details.getDetailsList()) {
        if (any.is(ErrorInfo.class)) {
          try {
            return any.unpack(ErrorInfo.class).getReason();
          } catch (com.google.protobuf.InvalidProtocolBufferException ignored) {
            // keep the code
          }
        }
      }
    }
    return "";
  }
}
