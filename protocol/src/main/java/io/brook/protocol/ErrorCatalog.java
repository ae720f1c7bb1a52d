package io.brook.protocol;

import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.ErrorOptionsProto;
import io.brook.protocol.v1.GrpcStatus;
import io.grpc.Status;

/**
 * Brook's error catalog as Java reads it: each {@link ErrorCode}'s options in errors.proto (its
 * gRPC status, whether it is retriable), taken from the generated descriptors. It lives beside the
 * contract so the broker and the Java client answer from the same source; the Go client reads the
 * same options with protoreflect.
 */
public final class ErrorCatalog {
  private ErrorCatalog() {}

  /**
   * The gRPC status of a whole request that fails with this code.
   *
   * @throws IllegalArgumentException for {@code ERROR_CODE_UNSPECIFIED} (no error) and for a code
   *     this build does not know
   */
  public static Status.Code grpcStatus(ErrorCode code) {
    GrpcStatus status = known(code).getValueDescriptor().getOptions().getExtension(ErrorOptionsProto.grpcStatus);
    if (status == GrpcStatus.GRPC_STATUS_UNSPECIFIED) {
      throw new IllegalArgumentException(code + " has no (brook.v1.grpc_status) in errors.proto");
    }
    return Status.fromCodeValue(status.getNumber()).getCode();
  }

  /** Whether the same call may succeed later unchanged; false for a code this build does not know. */
  public static boolean retriable(ErrorCode code) {
    return code != ErrorCode.UNRECOGNIZED
        && code.getValueDescriptor().getOptions().getExtension(ErrorOptionsProto.retriable);
  }

  private static ErrorCode known(ErrorCode code) {
    if (code == ErrorCode.UNRECOGNIZED) {
      throw new IllegalArgumentException("an error code this build does not know has no catalog entry");
    }
    return code;
  }
}
