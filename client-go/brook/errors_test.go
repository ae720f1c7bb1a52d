package brook

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

func TestEveryErrorCodeHasASentinel(t *testing.T) {
	for value, name := range brookv1.ErrorCode_name {
		code := brookv1.ErrorCode(value)
		if code == brookv1.ErrorCode_ERROR_CODE_UNSPECIFIED {
			continue
		}
		if codeErrors[code] == nil {
			t.Errorf("%s has no sentinel error in codeErrors", name)
		}
	}
}

func TestPartitionErrorMatchesItsSentinel(t *testing.T) {
	err := partitionError(brookv1.ErrorCode_ERROR_CODE_RECORD_TOO_LARGE, "record of 2000 bytes", "t", 3)
	if !errors.Is(err, ErrRecordTooLarge) || errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("errors.Is wrong for %v", err)
	}
	var be *BrokerError
	if !errors.As(err, &be) || be.Topic != "t" || be.Partition != 3 || be.Reason != "RECORD_TOO_LARGE" {
		t.Fatalf("errors.As gave %+v", be)
	}
	if want := "brook: RECORD_TOO_LARGE (t/3): record of 2000 bytes"; err.Error() != want {
		t.Fatalf("got %q, want %q", err.Error(), want)
	}
	if partitionError(brookv1.ErrorCode_ERROR_CODE_UNSPECIFIED, "", "t", 0) != nil {
		t.Fatal("no error code must give no error")
	}
}

func TestCallErrorUsesTheErrorInfoReason(t *testing.T) {
	st, err := status.New(codes.NotFound, "topic 'x' does not exist").
		WithDetails(&errdetails.ErrorInfo{Reason: "UNKNOWN_TOPIC", Domain: "brook.v1"})
	if err != nil {
		t.Fatal(err)
	}
	got := callError(st.Err())
	if !errors.Is(got, ErrUnknownTopic) {
		t.Fatalf("%v does not match ErrUnknownTopic", got)
	}
	var be *BrokerError
	if !errors.As(got, &be) || be.GRPCCode != codes.NotFound || be.Code != brookv1.ErrorCode_ERROR_CODE_UNKNOWN_TOPIC {
		t.Fatalf("got %+v", be)
	}
	if be.Retriable() {
		t.Fatal("UNKNOWN_TOPIC is not retriable")
	}
}

func TestCallErrorWithoutReasonUsesTheStatusCode(t *testing.T) {
	cases := map[codes.Code]error{
		codes.Unavailable:       ErrBrokerUnavailable,
		codes.Unauthenticated:   ErrUnauthenticated,
		codes.PermissionDenied:  ErrPermissionDenied,
		codes.InvalidArgument:   ErrInvalidRequest,
		codes.ResourceExhausted: ErrRequestTooLarge,
	}
	for code, want := range cases {
		got := callError(status.Error(code, "x"))
		if !errors.Is(got, want) {
			t.Errorf("%v: %v does not match %v", code, got, want)
		}
	}
	var down *BrokerError
	if !errors.As(callError(status.Error(codes.DeadlineExceeded, "slow")), &down) || down.Reason != "DEADLINE_EXCEEDED" {
		t.Errorf("reason %q, want DEADLINE_EXCEEDED", down.Reason)
	}
	if !isRetriable(callError(status.Error(codes.Unavailable, "down"))) {
		t.Error("UNAVAILABLE must be retriable")
	}
	if got := callError(status.Error(codes.Canceled, "x")); !errors.Is(got, context.Canceled) {
		t.Errorf("CANCELLED gave %v", got)
	}
	unknown, _ := status.New(codes.Internal, "new").WithDetails(&errdetails.ErrorInfo{Reason: "SOMETHING_NEW"})
	var be *BrokerError
	if got := callError(unknown.Err()); !errors.As(got, &be) || be.Reason != "SOMETHING_NEW" {
		t.Errorf("a reason this client does not know gave %v", got)
	}
}
