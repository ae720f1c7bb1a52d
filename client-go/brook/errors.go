package brook

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// Sentinel errors. Every error the broker returns matches one of them with
// errors.Is and unwraps to a *BrokerError with errors.As, which carries the
// broker's message and, for per-partition errors, the topic and partition.
var (
	// One per broker error code (brook.v1.ErrorCode in errors.proto).
	ErrUnknownTopic          = errors.New("brook: unknown topic")
	ErrUnknownPartition      = errors.New("brook: unknown partition")
	ErrOffsetOutOfRange      = errors.New("brook: offset out of range")
	ErrRecordTooLarge        = errors.New("brook: record too large")
	ErrBatchTooLarge         = errors.New("brook: batch too large")
	ErrInvalidRecord         = errors.New("brook: invalid record")
	ErrNotEnoughDisk         = errors.New("brook: not enough disk")
	ErrStorage               = errors.New("brook: storage error")
	ErrInvalidRequest        = errors.New("brook: invalid request")
	ErrTopicExists           = errors.New("brook: topic already exists")
	ErrLimitExceeded         = errors.New("brook: limit exceeded")
	ErrOutOfOrderSequence    = errors.New("brook: out of order sequence")
	ErrProducerFenced        = errors.New("brook: producer fenced")
	ErrUnknownProducerID     = errors.New("brook: unknown producer id")
	ErrUnknownGroup          = errors.New("brook: unknown group")
	ErrGroupExists           = errors.New("brook: group already exists")
	ErrUnknownMember         = errors.New("brook: unknown member id")
	ErrIllegalGeneration     = errors.New("brook: illegal generation")
	ErrGroupNotEmpty         = errors.New("brook: group not empty")
	ErrInconsistentGroupMode = errors.New("brook: inconsistent group mode")
	ErrNotLeased             = errors.New("brook: not leased")
	ErrLeaseExpired          = errors.New("brook: lease expired")
	ErrAlreadySettled        = errors.New("brook: already settled")
	// A newer ack consumer with the same member id took this one's member
	// over; or, in offset mode, a newer consumer with the same group instance
	// id (WithGroupInstanceID) took this static member's place.
	ErrMemberReplaced = errors.New("brook: member replaced")

	// gRPC statuses the broker answers without an error code.
	ErrBrokerUnavailable = errors.New("brook: broker unavailable")
	ErrUnauthenticated   = errors.New("brook: unauthenticated")
	ErrPermissionDenied  = errors.New("brook: permission denied")
	// A request larger than the broker's max.request.bytes, refused by gRPC itself.
	ErrRequestTooLarge = errors.New("brook: request too large")

	// Client-side errors.
	ErrClientClosed = errors.New("brook: client closed")
	// Produce found the producer's buffer full and its context ended first,
	// or the buffer was full and WithMaxBufferedWait's wait ran out.
	ErrBufferFull = errors.New("brook: producer buffer full")
	// A produced record was not answered within WithDeliveryTimeout.
	ErrDeliveryTimeout = errors.New("brook: delivery timeout")
	// The context of Produce or ProduceSync ended before the record was handed
	// to the produce stream: it was taken out of the buffer and is never
	// written, so producing it again makes no duplicate.
	ErrRecordNotSent = errors.New("brook: record not sent")
	// ProduceSync's context ended while the record was on its way to the
	// broker (sent at least once, not answered): it may be written or not.
	// The producer still finishes it (written at most once when idempotent, the default).
	ErrRecordOutcomeUnknown = errors.New("brook: record outcome unknown")
	// A client was made with options that are not valid; see *ConfigError.
	ErrInvalidConfig = errors.New("brook: invalid config")
	// A commit was refused because the consumer is no longer the owner of the
	// partitions (it missed a rebalance); poll again and redo the work.
	ErrCommitFailed = errors.New("brook: commit failed")
	// AckConsumer.Close could not send these settles (no stream to the broker
	// before its context ended, or an error ended the consumer): their records
	// are delivered again.
	ErrSettleNotSent = errors.New("brook: settle not sent")
	// AckConsumer.Close sent these settles, but the stream or call failed
	// before the broker confirmed them: whether it applied them is unknown.
	ErrSettleOutcomeUnknown = errors.New("brook: settle outcome unknown")
)

// codeErrors maps every broker error code to its sentinel; TestEveryErrorCodeHasASentinel
// fails when errors.proto gains a code this table lacks.
var codeErrors = map[brookv1.ErrorCode]error{
	brookv1.ErrorCode_ERROR_CODE_UNKNOWN_TOPIC:           ErrUnknownTopic,
	brookv1.ErrorCode_ERROR_CODE_UNKNOWN_PARTITION:       ErrUnknownPartition,
	brookv1.ErrorCode_ERROR_CODE_OFFSET_OUT_OF_RANGE:     ErrOffsetOutOfRange,
	brookv1.ErrorCode_ERROR_CODE_RECORD_TOO_LARGE:        ErrRecordTooLarge,
	brookv1.ErrorCode_ERROR_CODE_BATCH_TOO_LARGE:         ErrBatchTooLarge,
	brookv1.ErrorCode_ERROR_CODE_INVALID_RECORD:          ErrInvalidRecord,
	brookv1.ErrorCode_ERROR_CODE_NOT_ENOUGH_DISK:         ErrNotEnoughDisk,
	brookv1.ErrorCode_ERROR_CODE_STORAGE_ERROR:           ErrStorage,
	brookv1.ErrorCode_ERROR_CODE_INVALID_REQUEST:         ErrInvalidRequest,
	brookv1.ErrorCode_ERROR_CODE_TOPIC_ALREADY_EXISTS:    ErrTopicExists,
	brookv1.ErrorCode_ERROR_CODE_LIMIT_EXCEEDED:          ErrLimitExceeded,
	brookv1.ErrorCode_ERROR_CODE_OUT_OF_ORDER_SEQUENCE:   ErrOutOfOrderSequence,
	brookv1.ErrorCode_ERROR_CODE_PRODUCER_FENCED:         ErrProducerFenced,
	brookv1.ErrorCode_ERROR_CODE_UNKNOWN_PRODUCER_ID:     ErrUnknownProducerID,
	brookv1.ErrorCode_ERROR_CODE_UNKNOWN_GROUP:           ErrUnknownGroup,
	brookv1.ErrorCode_ERROR_CODE_GROUP_ALREADY_EXISTS:    ErrGroupExists,
	brookv1.ErrorCode_ERROR_CODE_UNKNOWN_MEMBER_ID:       ErrUnknownMember,
	brookv1.ErrorCode_ERROR_CODE_ILLEGAL_GENERATION:      ErrIllegalGeneration,
	brookv1.ErrorCode_ERROR_CODE_GROUP_NOT_EMPTY:         ErrGroupNotEmpty,
	brookv1.ErrorCode_ERROR_CODE_INCONSISTENT_GROUP_MODE: ErrInconsistentGroupMode,
	brookv1.ErrorCode_ERROR_CODE_NOT_LEASED:              ErrNotLeased,
	brookv1.ErrorCode_ERROR_CODE_LEASE_EXPIRED:           ErrLeaseExpired,
	brookv1.ErrorCode_ERROR_CODE_ALREADY_SETTLED:         ErrAlreadySettled,
	brookv1.ErrorCode_ERROR_CODE_MEMBER_REPLACED:         ErrMemberReplaced,
	// Another principal's member or producer id: a permission error like any other.
	brookv1.ErrorCode_ERROR_CODE_NOT_OWNER: ErrPermissionDenied,
}

// BrokerError is an error the broker answered: a per-partition error code
// inside a result, or a failed call's gRPC status (with the broker's error
// code when it named one).
type BrokerError struct {
	// Reason is the broker's error code without its ERROR_CODE_ prefix (for
	// example UNKNOWN_TOPIC), or the gRPC status code's name when the broker
	// named no code (for example UNAVAILABLE).
	Reason string
	// Code is the broker's error code; ERROR_CODE_UNSPECIFIED when it named none.
	Code brookv1.ErrorCode
	// GRPCCode is the call's status code; codes.OK for a per-partition error.
	GRPCCode codes.Code
	// Message is the broker's message, for people.
	Message string
	// Topic and Partition name the partition of a per-partition error
	// (Partition is -1 otherwise).
	Topic     string
	Partition int32

	sentinel error
	cause    error
}

func (e *BrokerError) Error() string {
	var b strings.Builder
	b.WriteString("brook: ")
	b.WriteString(e.Reason)
	if e.Topic != "" {
		if e.Partition >= 0 {
			fmt.Fprintf(&b, " (%s/%d)", e.Topic, e.Partition)
		} else {
			fmt.Fprintf(&b, " (%s)", e.Topic)
		}
	}
	if e.Message != "" && e.Message != e.Reason {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// Unwrap returns the sentinel the error matches (and the gRPC error it came from, if any).
func (e *BrokerError) Unwrap() []error {
	out := make([]error, 0, 2)
	if e.sentinel != nil {
		out = append(out, e.sentinel)
	}
	if e.cause != nil {
		out = append(out, e.cause)
	}
	return out
}

// Retriable says whether the same call may succeed later unchanged.
func (e *BrokerError) Retriable() bool {
	if e.Code != brookv1.ErrorCode_ERROR_CODE_UNSPECIFIED {
		return retriableCodes[e.Code]
	}
	return e.GRPCCode == codes.Unavailable || e.GRPCCode == codes.DeadlineExceeded
}

// partitionError is the error of one partition's result; nil for ERROR_CODE_UNSPECIFIED.
func partitionError(code brookv1.ErrorCode, message, topic string, partition int32) error {
	if code == brookv1.ErrorCode_ERROR_CODE_UNSPECIFIED {
		return nil
	}
	return &BrokerError{
		Reason:    strings.TrimPrefix(code.String(), "ERROR_CODE_"),
		Code:      code,
		Message:   message,
		Topic:     topic,
		Partition: partition,
		sentinel:  codeErrors[code],
	}
}

// callError turns a failed gRPC call into the client's error: a *BrokerError
// for a status, context errors and client errors as they are.
func callError(err error) error {
	if err == nil {
		return nil
	}
	var be *BrokerError
	if errors.As(err, &be) || errors.Is(err, ErrClientClosed) {
		return err
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	switch st.Code() {
	case codes.Canceled:
		if errors.Is(err, context.Canceled) {
			return err
		}
		return context.Canceled
	case codes.DeadlineExceeded:
		if errors.Is(err, context.DeadlineExceeded) {
			return err
		}
	}
	out := &BrokerError{
		Reason:    statusName(st.Code()),
		GRPCCode:  st.Code(),
		Message:   st.Message(),
		Partition: -1,
		cause:     err,
	}
	if reason := errorInfoReason(st); reason != "" {
		out.Reason = reason
		if v, known := brookv1.ErrorCode_value["ERROR_CODE_"+reason]; known {
			out.Code = brookv1.ErrorCode(v)
			out.sentinel = codeErrors[out.Code]
		}
		return out
	}
	switch st.Code() {
	case codes.Unavailable:
		out.sentinel = ErrBrokerUnavailable
	case codes.Unauthenticated:
		out.sentinel = ErrUnauthenticated
	case codes.PermissionDenied:
		out.sentinel = ErrPermissionDenied
	case codes.InvalidArgument:
		out.sentinel = ErrInvalidRequest
	case codes.ResourceExhausted:
		out.sentinel = ErrRequestTooLarge
	}
	return out
}

// statusName is the status code's name as gRPC's specification spells it
// (UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED), as the Java client's reasons.
func statusName(c codes.Code) string {
	if c == codes.Canceled {
		return "CANCELLED"
	}
	var b strings.Builder
	for i, r := range c.String() {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

// errorInfoReason is the reason of the broker's google.rpc.ErrorInfo detail, or "".
func errorInfoReason(st *status.Status) string {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.GetReason()
		}
	}
	return ""
}

// isRetriable says whether a call that failed with err may be tried again on a new stream.
func isRetriable(err error) bool {
	var be *BrokerError
	return errors.As(err, &be) && be.Retriable()
}

// ConfigError lists every problem of a client's options at once.
type ConfigError struct {
	Client   string
	Problems []string
}

func (e *ConfigError) Error() string {
	return fmt.Sprintf("brook: invalid %s options: %s", e.Client, strings.Join(e.Problems, "; "))
}

// Unwrap makes errors.Is(err, ErrInvalidConfig) true.
func (e *ConfigError) Unwrap() error { return ErrInvalidConfig }
