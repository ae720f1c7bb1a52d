package io.brook.broker.api;

import com.google.protobuf.Any;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import io.brook.broker.errors.BrokerError;
import io.brook.broker.errors.BrokerException;
import io.brook.broker.errors.LimitExceededException;
import io.brook.protocol.ErrorCatalog;
import io.brook.protocol.v1.ErrorCode;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps broker errors to the wire: a gRPC status with a google.rpc.ErrorInfo (reason = the ErrorCode
 * name without its prefix, domain brook.v1) for whole requests, an ErrorCode per partition inside
 * answers. Unexpected exceptions become INTERNAL and are logged with their stack trace; expected
 * ones are not logged here at all (they are the caller's mistakes, answered with a message).
 */
public final class Errors {
  private static final Logger log = LoggerFactory.getLogger(Errors.class);
  static final String DOMAIN = "brook.v1";
  /** At most 3 UTF-8 bytes each: under 9 bytes percent-encoded, about 4 in base64; 400 fit in 8 KiB. */
  static final int MAX_MESSAGE_CHARS = 400;

  private Errors() {}

  /** The wire code of a broker error; ErrorsTest checks that each code is the code of exactly one error. */
  public static ErrorCode code(BrokerError e) {
    return switch (e) {
      case UNKNOWN_TOPIC -> ErrorCode.ERROR_CODE_UNKNOWN_TOPIC;
      case UNKNOWN_PARTITION -> ErrorCode.ERROR_CODE_UNKNOWN_PARTITION;
      case OFFSET_OUT_OF_RANGE -> ErrorCode.ERROR_CODE_OFFSET_OUT_OF_RANGE;
      case RECORD_TOO_LARGE -> ErrorCode.ERROR_CODE_RECORD_TOO_LARGE;
      case BATCH_TOO_LARGE -> ErrorCode.ERROR_CODE_BATCH_TOO_LARGE;
      case INVALID_RECORD -> ErrorCode.ERROR_CODE_INVALID_RECORD;
      case NOT_ENOUGH_DISK -> ErrorCode.ERROR_CODE_NOT_ENOUGH_DISK;
      case LIMIT_EXCEEDED -> ErrorCode.ERROR_CODE_LIMIT_EXCEEDED;
      case STORAGE_ERROR -> ErrorCode.ERROR_CODE_STORAGE_ERROR;
      case INVALID_REQUEST -> ErrorCode.ERROR_CODE_INVALID_REQUEST;
      case TOPIC_EXISTS -> ErrorCode.ERROR_CODE_TOPIC_ALREADY_EXISTS;
      case OUT_OF_ORDER_SEQUENCE -> ErrorCode.ERROR_CODE_OUT_OF_ORDER_SEQUENCE;
      case PRODUCER_FENCED -> ErrorCode.ERROR_CODE_PRODUCER_FENCED;
      case UNKNOWN_PRODUCER_ID -> ErrorCode.ERROR_CODE_UNKNOWN_PRODUCER_ID;
      case UNKNOWN_GROUP -> ErrorCode.ERROR_CODE_UNKNOWN_GROUP;
      case GROUP_EXISTS -> ErrorCode.ERROR_CODE_GROUP_ALREADY_EXISTS;
      case UNKNOWN_MEMBER_ID -> ErrorCode.ERROR_CODE_UNKNOWN_MEMBER_ID;
      case ILLEGAL_GENERATION -> ErrorCode.ERROR_CODE_ILLEGAL_GENERATION;
      case GROUP_NOT_EMPTY -> ErrorCode.ERROR_CODE_GROUP_NOT_EMPTY;
      case INCONSISTENT_GROUP_MODE -> ErrorCode.ERROR_CODE_INCONSISTENT_GROUP_MODE;
      case NOT_LEASED -> ErrorCode.ERROR_CODE_NOT_LEASED;
      case LEASE_EXPIRED -> ErrorCode.ERROR_CODE_LEASE_EXPIRED;
      case ALREADY_SETTLED -> ErrorCode.ERROR_CODE_ALREADY_SETTLED;
      case MEMBER_REPLACED -> ErrorCode.ERROR_CODE_MEMBER_REPLACED;
      case NOT_OWNER -> ErrorCode.ERROR_CODE_NOT_OWNER;
    };
  }

  /** The status of a whole request that fails with {@code e}: its code's entry in the error catalog. */
  public static Status.Code status(BrokerError e) {
    return ErrorCatalog.grpcStatus(code(e));
  }

  /** The ErrorInfo reason of {@code e}: its ErrorCode's name without ERROR_CODE_ (the REST relay's code too). */
  public static String reason(BrokerError e) {
    return code(e).name().substring("ERROR_CODE_".length());
  }

  static StatusRuntimeException toStatus(BrokerError error, String message) {
    return toStatus(error, message, ErrorInfo.newBuilder());
  }

  private static StatusRuntimeException toStatus(BrokerError error, String message, ErrorInfo.Builder info) {
    com.google.rpc.Status.Builder status = com.google.rpc.Status.newBuilder()
        .setCode(status(error).value())
        .setMessage(clip(message))
        .addDetails(Any.pack(info.setReason(reason(error)).setDomain(DOMAIN).build()));
    if (error == BrokerError.NOT_ENOUGH_DISK) { // retryable: space comes back when it is freed
      status.addDetails(Any.pack(RetryInfo.newBuilder()
          .setRetryDelay(com.google.protobuf.Duration.newBuilder().setSeconds(1)).build()));
    }
    return StatusProto.toStatusRuntimeException(status.build());
  }

  /**
   * A status travels in HTTP/2 trailers twice (grpc-message, percent-encoded, and the details,
   * base64), and clients refuse trailers over 8 KiB with a bare "http2 exception". Messages can
   * echo what a client sent (a config key, a value), so they are cut to a size that always fits.
   */
  public static String clip(String message) {
    if (message == null || message.length() <= MAX_MESSAGE_CHARS) {
      return message;
    }
    return message.substring(0, MAX_MESSAGE_CHARS) + "… (" + message.length() + " characters, cut)";
  }

  static StatusRuntimeException invalid(String message) {
    return toStatus(BrokerError.INVALID_REQUEST, message);
  }

  /** Any throwable from a handler, as the status to answer with. */
  static StatusRuntimeException toStatus(Throwable t) {
    if (t instanceof LimitExceededException l) { // the limit's key and value, for programs
      return toStatus(l.error(), l.getMessage(), ErrorInfo.newBuilder().putMetadata("limit", l.key())
          .putMetadata("value", Long.toString(l.limit())));
    }
    if (t instanceof BrokerException b) {
      return toStatus(b.error(), b.getMessage());
    }
    if (t instanceof StatusRuntimeException s) {
      return s;
    }
    log.warn("Unexpected failure while serving a request", t);
    return Status.INTERNAL.withDescription(clip("internal error: " + t)).asRuntimeException();
  }
}
