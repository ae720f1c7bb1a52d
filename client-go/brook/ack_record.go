package brook

import (
	"errors"
	"fmt"
	"time"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// AckRecord is a record leased to an AckConsumer: the record, which delivery
// this is, and until when the lease runs. Settle it with Ack, Nack or Reject
// before then, or extend the lease; otherwise it is delivered again.
type AckRecord struct {
	Record
	// DeliveryAttempt is 1 on the first delivery, growing with each
	// redelivery (after a nack, an expired lease, or a broker restart: the
	// broker journals attempts).
	DeliveryAttempt int32
	// LeaseDeadline is when the lease runs out, by the broker's clock when it
	// delivered the record.
	LeaseDeadline time.Time

	stream uint64 // the Receive stream it came on
}

func (r *AckRecord) String() string {
	return fmt.Sprintf("AckRecord(%s/%d@%d, attempt %d)", r.Topic, r.Partition, r.Offset, r.DeliveryAttempt)
}

// SettleError is a run of offsets of one partition whose ack, nack, reject or
// lease extension the broker did not apply. Err is the broker's reason, a
// *BrokerError that matches ErrNotLeased (the consumer does not hold the
// record: never delivered to it, or now leased to another member),
// ErrLeaseExpired (the lease ran out first: the record is, or will be,
// delivered again, and the late settle changed nothing), ErrAlreadySettled,
// ErrUnknownTopic, ErrUnknownPartition or ErrInvalidRequest; errors.Is sees
// through a SettleError to it.
type SettleError struct {
	TopicPartition
	// FirstOffset..LastOffset, both included.
	FirstOffset, LastOffset int64
	Err                     error
}

func (e *SettleError) Error() string {
	offsets := fmt.Sprintf("offset %d", e.FirstOffset)
	if e.LastOffset != e.FirstOffset {
		offsets = fmt.Sprintf("offsets %d..%d", e.FirstOffset, e.LastOffset)
	}
	return fmt.Sprintf("brook: not settled: %s/%d %s: %v", e.Topic, e.Partition, offsets, e.Err)
}

func (e *SettleError) Unwrap() error { return e.Err }

// SettleErrors returns every *SettleError in err's tree (for example each
// refusal of the errors.Join that Flush returns), or none.
func SettleErrors(err error) []*SettleError {
	var out []*SettleError
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if se, ok := e.(*SettleError); ok {
			out = append(out, se)
			return
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				walk(inner)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	walk(err)
	return out
}

// settleErrorOf converts one failure the broker answered.
func settleErrorOf(f *brookv1.SettleFailure) *SettleError {
	r := f.GetRange()
	last := r.GetFirstOffset()
	if r.LastOffset != nil {
		last = r.GetLastOffset()
	}
	code := f.GetErrorCode()
	if code == brookv1.ErrorCode_ERROR_CODE_UNSPECIFIED {
		// A failure without a code should not happen; keep it a failure anyway.
		code = brookv1.ErrorCode_ERROR_CODE_INVALID_REQUEST
	}
	return &SettleError{
		TopicPartition: TopicPartition{Topic: r.GetTopic(), Partition: r.GetPartition()},
		FirstOffset:    r.GetFirstOffset(),
		LastOffset:     last,
		Err:            partitionError(code, f.GetErrorMessage(), r.GetTopic(), r.GetPartition()),
	}
}

// settleJoin is the refusals of one send as one error (nil for none).
func settleJoin(failures []*brookv1.SettleFailure) error {
	if len(failures) == 0 {
		return nil
	}
	errs := make([]error, len(failures))
	for i, f := range failures {
		errs[i] = settleErrorOf(f)
	}
	return errors.Join(errs...)
}

// AckStats are an AckConsumer's counters since it was made.
type AckStats struct {
	// ReceivedRecords counts deliveries; RedeliveredRecords those with DeliveryAttempt > 1.
	ReceivedRecords, RedeliveredRecords int64
	// SettlesQueued counts Ack, Nack, Reject and ExtendLease calls.
	SettlesQueued int64
	// SettleMessages counts the stream messages that carried settles,
	// SettleCalls the unary Settle calls (Flush, Close).
	SettleMessages, SettleCalls int64
	// SettleFailures counts the offset ranges the broker refused.
	SettleFailures int64
	// Reconnects counts the tries to open the Receive stream again after it
	// broke or could not be opened.
	Reconnects int64
}
