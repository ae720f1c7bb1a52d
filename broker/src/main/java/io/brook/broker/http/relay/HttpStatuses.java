package io.brook.broker.http.relay;

import io.grpc.Status;

/**
 * The HTTP status of a refusal from its gRPC status: the mapping of google.rpc.Code's documentation
 * (and grpc-gateway's), so a client branching on either sees the same thing.
 */
public final class HttpStatuses {
  private HttpStatuses() {}

  public static int of(Status.Code code) {
    return switch (code) {
      case OK -> 200;
      case INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE -> 400;
      case UNAUTHENTICATED -> 401;
      case PERMISSION_DENIED -> 403;
      case NOT_FOUND -> 404;
      case ALREADY_EXISTS, ABORTED -> 409;
      case RESOURCE_EXHAUSTED -> 429;
      case CANCELLED -> 499;
      case UNIMPLEMENTED -> 501;
      case UNAVAILABLE -> 503;
      case DEADLINE_EXCEEDED -> 504;
      case UNKNOWN, INTERNAL, DATA_LOSS -> 500;
    };
  }
}
