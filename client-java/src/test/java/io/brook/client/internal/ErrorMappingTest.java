package io.brook.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.rpc.ErrorInfo;
import io.brook.client.errors.BrookException;
import io.brook.client.errors.RetriableException;
import io.brook.protocol.ErrorCatalog;
import io.brook.protocol.v1.ErrorCode;
import io.grpc.protobuf.StatusProto;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Java client against the error catalog (errors.proto's options): every code has an exception
 * class of its own, and the client retries a code (isRetriable, and the RetriableException type a
 * caller catches) exactly when the catalog marks it retriable.
 */
class ErrorMappingTest {
  @Test
  void everyCodeOfTheCatalogHasItsOwnExceptionClass() {
    List<String> problems = new ArrayList<>();
    for (ErrorCode code : catalog()) {
      BrookException e = ErrorMapping.fromCode(code, "m");
      if (e.getClass() == BrookException.class || e.getClass() == RetriableException.class) {
        problems.add(code + " has no exception class in ErrorMapping");
      }
      if (!e.reason().equals(code.name().substring("ERROR_CODE_".length()))) {
        problems.add(code + " has reason " + e.reason());
      }
    }
    assertThat(problems).isEmpty();
  }

  @Test
  void theClientRetriesACodeExactlyWhenTheCatalogSaysSo() {
    List<String> problems = new ArrayList<>();
    int retriable = 0;
    for (ErrorCode code : catalog()) {
      boolean catalog = ErrorCatalog.retriable(code);
      BrookException e = ErrorMapping.fromCode(code, "m");
      if (e.isRetriable() != catalog) {
        problems.add(code + ": " + e.getClass().getSimpleName() + ".isRetriable() is " + e.isRetriable()
            + ", the catalog says " + catalog);
      }
      if (e instanceof RetriableException != catalog) {
        problems.add(code + ": " + e.getClass().getSimpleName() + (catalog ? " does not extend" : " extends")
            + " RetriableException, the catalog says retriable=" + catalog);
      }
      retriable += catalog ? 1 : 0;
    }
    assertThat(problems).isEmpty();
    assertThat(retriable).as("retriable codes in the catalog").isPositive();
  }

  @Test
  void aStatusNamingACodeGivesTheCodesException() {
    for (ErrorCode code : catalog()) {
      String reason = code.name().substring("ERROR_CODE_".length());
      com.google.rpc.Status status = com.google.rpc.Status.newBuilder()
          .setCode(ErrorCatalog.grpcStatus(code).value()).setMessage("m")
          .addDetails(Any.pack(ErrorInfo.newBuilder().setReason(reason).setDomain("brook.v1").build())).build();
      BrookException e = ErrorMapping.fromStatus(StatusProto.toStatusRuntimeException(status));
      assertThat(e).as("%s", code).isExactlyInstanceOf(ErrorMapping.fromCode(code, "m").getClass());
      assertThat(e.reason()).isEqualTo(reason);
    }
  }

  private static List<ErrorCode> catalog() {
    List<ErrorCode> codes = new ArrayList<>();
    for (ErrorCode code : ErrorCode.values()) {
      if (code != ErrorCode.ERROR_CODE_UNSPECIFIED && code != ErrorCode.UNRECOGNIZED) {
        codes.add(code);
      }
    }
    assertThat(codes).as("codes in errors.proto").hasSizeGreaterThan(20);
    return codes;
  }
}
