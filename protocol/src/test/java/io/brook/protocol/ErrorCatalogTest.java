package io.brook.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.protocol.v1.ErrorCode;
import io.brook.protocol.v1.GrpcStatus;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The catalog in errors.proto is complete, and its GrpcStatus values are gRPC's own. */
class ErrorCatalogTest {
  @Test
  void everyErrorCodeNamesItsGrpcStatus() {
    List<ErrorCode> missing = new ArrayList<>();
    for (ErrorCode code : ErrorCode.values()) {
      if (code == ErrorCode.ERROR_CODE_UNSPECIFIED || code == ErrorCode.UNRECOGNIZED) {
        continue;
      }
      try {
        assertThat(ErrorCatalog.grpcStatus(code)).as("status of %s", code).isNotEqualTo(Status.Code.OK);
      } catch (IllegalArgumentException e) {
        missing.add(code);
      }
    }
    assertThat(missing).as("codes without (brook.v1.grpc_status)").isEmpty();
  }

  @Test
  void readsTheOptionsAsWritten() {
    assertThat(ErrorCatalog.grpcStatus(ErrorCode.ERROR_CODE_UNKNOWN_TOPIC)).isEqualTo(Status.Code.NOT_FOUND);
    assertThat(ErrorCatalog.grpcStatus(ErrorCode.ERROR_CODE_NOT_OWNER)).isEqualTo(Status.Code.PERMISSION_DENIED);
    Set<ErrorCode> retriable = EnumSet.noneOf(ErrorCode.class);
    for (ErrorCode code : ErrorCode.values()) {
      if (ErrorCatalog.retriable(code)) {
        retriable.add(code);
      }
    }
    assertThat(retriable).containsExactlyInAnyOrder(ErrorCode.ERROR_CODE_UNKNOWN_PARTITION,
        ErrorCode.ERROR_CODE_NOT_ENOUGH_DISK, ErrorCode.ERROR_CODE_STORAGE_ERROR);
  }

  @Test
  void noErrorAndUnknownCodesHaveNoStatus() {
    assertThatThrownBy(() -> ErrorCatalog.grpcStatus(ErrorCode.ERROR_CODE_UNSPECIFIED))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ERROR_CODE_UNSPECIFIED");
    assertThatThrownBy(() -> ErrorCatalog.grpcStatus(ErrorCode.UNRECOGNIZED))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(ErrorCatalog.retriable(ErrorCode.UNRECOGNIZED)).isFalse();
  }

  /** GrpcStatus copies gRPC's codes by name and number, so reading one by number is exact. */
  @Test
  void grpcStatusMirrorsGrpcsCodes() {
    for (Status.Code c : Status.Code.values()) {
      if (c == Status.Code.OK) {
        continue;
      }
      GrpcStatus mirror = GrpcStatus.forNumber(c.value());
      assertThat(mirror).as("GrpcStatus for %s", c).isNotNull();
      assertThat(mirror.name()).isEqualTo("GRPC_STATUS_" + c.name());
    }
    assertThat(GrpcStatus.values()).hasSize(Status.Code.values().length + 1); // + UNRECOGNIZED, - OK, + UNSPECIFIED
  }
}
