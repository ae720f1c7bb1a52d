package io.brook.broker.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import io.brook.broker.errors.BrokerError;
import io.brook.protocol.v1.ErrorCode;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What each broker error looks like on the wire, written out as it was before the statuses came
 * from the error catalog (errors.proto's options): a change of the catalog that moves a status, or
 * a broker error without its code, fails here.
 */
class ErrorsTest {
  /** Each broker error: its code, and the status of a whole request it fails. */
  private static final Map<BrokerError, Wire> WIRE = new EnumMap<>(Map.ofEntries(
      Map.entry(BrokerError.UNKNOWN_TOPIC, wire(ErrorCode.ERROR_CODE_UNKNOWN_TOPIC, Status.Code.NOT_FOUND)),
      Map.entry(BrokerError.UNKNOWN_PARTITION, wire(ErrorCode.ERROR_CODE_UNKNOWN_PARTITION, Status.Code.NOT_FOUND)),
      Map.entry(BrokerError.TOPIC_EXISTS, wire(ErrorCode.ERROR_CODE_TOPIC_ALREADY_EXISTS, Status.Code.ALREADY_EXISTS)),
      Map.entry(BrokerError.OFFSET_OUT_OF_RANGE, wire(ErrorCode.ERROR_CODE_OFFSET_OUT_OF_RANGE, Status.Code.OUT_OF_RANGE)),
      Map.entry(BrokerError.RECORD_TOO_LARGE, wire(ErrorCode.ERROR_CODE_RECORD_TOO_LARGE, Status.Code.INVALID_ARGUMENT)),
      Map.entry(BrokerError.BATCH_TOO_LARGE, wire(ErrorCode.ERROR_CODE_BATCH_TOO_LARGE, Status.Code.INVALID_ARGUMENT)),
      Map.entry(BrokerError.INVALID_RECORD, wire(ErrorCode.ERROR_CODE_INVALID_RECORD, Status.Code.INVALID_ARGUMENT)),
      Map.entry(BrokerError.INVALID_REQUEST, wire(ErrorCode.ERROR_CODE_INVALID_REQUEST, Status.Code.INVALID_ARGUMENT)),
      Map.entry(BrokerError.NOT_ENOUGH_DISK, wire(ErrorCode.ERROR_CODE_NOT_ENOUGH_DISK, Status.Code.RESOURCE_EXHAUSTED)),
      Map.entry(BrokerError.LIMIT_EXCEEDED, wire(ErrorCode.ERROR_CODE_LIMIT_EXCEEDED, Status.Code.RESOURCE_EXHAUSTED)),
      Map.entry(BrokerError.STORAGE_ERROR, wire(ErrorCode.ERROR_CODE_STORAGE_ERROR, Status.Code.INTERNAL)),
      Map.entry(BrokerError.OUT_OF_ORDER_SEQUENCE,
          wire(ErrorCode.ERROR_CODE_OUT_OF_ORDER_SEQUENCE, Status.Code.FAILED_PRECONDITION)),
      Map.entry(BrokerError.PRODUCER_FENCED, wire(ErrorCode.ERROR_CODE_PRODUCER_FENCED, Status.Code.FAILED_PRECONDITION)),
      Map.entry(BrokerError.UNKNOWN_PRODUCER_ID,
          wire(ErrorCode.ERROR_CODE_UNKNOWN_PRODUCER_ID, Status.Code.FAILED_PRECONDITION)),
      Map.entry(BrokerError.UNKNOWN_GROUP, wire(ErrorCode.ERROR_CODE_UNKNOWN_GROUP, Status.Code.NOT_FOUND)),
      Map.entry(BrokerError.GROUP_EXISTS, wire(ErrorCode.ERROR_CODE_GROUP_ALREADY_EXISTS, Status.Code.ALREADY_EXISTS)),
      Map.entry(BrokerError.UNKNOWN_MEMBER_ID, wire(ErrorCode.ERROR_CODE_UNKNOWN_MEMBER_ID, Status.Code.NOT_FOUND)),
      Map.entry(BrokerError.ILLEGAL_GENERATION, wire(ErrorCode.ERROR_CODE_ILLEGAL_GENERATION, Status.Code.ABORTED)),
      Map.entry(BrokerError.GROUP_NOT_EMPTY, wire(ErrorCode.ERROR_CODE_GROUP_NOT_EMPTY, Status.Code.FAILED_PRECONDITION)),
      Map.entry(BrokerError.INCONSISTENT_GROUP_MODE,
          wire(ErrorCode.ERROR_CODE_INCONSISTENT_GROUP_MODE, Status.Code.FAILED_PRECONDITION)),
      Map.entry(BrokerError.NOT_LEASED, wire(ErrorCode.ERROR_CODE_NOT_LEASED, Status.Code.FAILED_PRECONDITION)),
      Map.entry(BrokerError.LEASE_EXPIRED, wire(ErrorCode.ERROR_CODE_LEASE_EXPIRED, Status.Code.FAILED_PRECONDITION)),
      Map.entry(BrokerError.ALREADY_SETTLED, wire(ErrorCode.ERROR_CODE_ALREADY_SETTLED, Status.Code.FAILED_PRECONDITION)),
      Map.entry(BrokerError.MEMBER_REPLACED, wire(ErrorCode.ERROR_CODE_MEMBER_REPLACED, Status.Code.ABORTED)),
      Map.entry(BrokerError.NOT_OWNER, wire(ErrorCode.ERROR_CODE_NOT_OWNER, Status.Code.PERMISSION_DENIED))));

  private record Wire(ErrorCode code, Status.Code status) {}

  private static Wire wire(ErrorCode code, Status.Code status) {
    return new Wire(code, status);
  }

  @Test
  void everyBrokerErrorHasTheCodeAndStatusItAlwaysHad() {
    assertThat(WIRE.keySet()).as("every broker error is pinned here").isEqualTo(EnumSet.allOf(BrokerError.class));
    for (BrokerError e : BrokerError.values()) {
      assertThat(Errors.code(e)).as("code of %s", e).isEqualTo(WIRE.get(e).code());
      assertThat(Errors.status(e)).as("status of %s", e).isEqualTo(WIRE.get(e).status());
      assertThat(Errors.reason(e)).as("reason of %s", e).isEqualTo(WIRE.get(e).code().name().substring(11));
    }
  }

  @Test
  void everyErrorCodeIsTheCodeOfExactlyOneBrokerError() {
    Set<ErrorCode> sent = Arrays.stream(BrokerError.values()).map(Errors::code)
        .collect(Collectors.toCollection(() -> EnumSet.noneOf(ErrorCode.class)));
    assertThat(sent).as("codes are distinct").hasSize(BrokerError.values().length);
    Set<ErrorCode> catalog = EnumSet.allOf(ErrorCode.class);
    catalog.remove(ErrorCode.ERROR_CODE_UNSPECIFIED);
    catalog.remove(ErrorCode.UNRECOGNIZED);
    assertThat(sent).as("the broker raises every code of errors.proto").isEqualTo(catalog);
  }

  @Test
  void aWholeRequestStatusCarriesTheReasonAndOnlyNotEnoughDiskARetryDelay() throws Exception {
    for (BrokerError e : BrokerError.values()) {
      StatusRuntimeException s = Errors.toStatus(e, "why");
      assertThat(s.getStatus().getCode()).as("status of %s", e).isEqualTo(WIRE.get(e).status());
      com.google.rpc.Status details = StatusProto.fromThrowable(s);
      ErrorInfo info = details.getDetails(0).unpack(ErrorInfo.class);
      assertThat(info.getReason()).isEqualTo(Errors.reason(e));
      assertThat(info.getDomain()).isEqualTo("brook.v1");
      boolean retryInfo = details.getDetailsList().stream().anyMatch(d -> d.is(RetryInfo.class));
      assertThat(retryInfo).as("RetryInfo on %s", e).isEqualTo(e == BrokerError.NOT_ENOUGH_DISK);
    }
  }
}
