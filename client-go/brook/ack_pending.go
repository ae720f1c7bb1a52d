package brook

import (
	"errors"
	"slices"
	"sync"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// ackMaxRange is the widest offset range the broker accepts.
const ackMaxRange = 1_000_000

// ackKind is what a settle does.
type ackKind int8

const (
	ackKindAck ackKind = iota
	ackKindNack
	ackKindReject
	ackKindExtend
)

// ackKey is one kind of settle for one partition; millis is the nack delay or the new lease.
type ackKey struct {
	topic     string
	partition int32
	kind      ackKind
	millis    int32
}

// ackPending holds the acks, nacks, rejects and lease extensions waiting to be
// sent. They leave together as offset ranges: consecutive offsets of one
// partition with the same kind (and delay or lease) become one range.
// Goroutine-safe.
type ackPending struct {
	mu    sync.Mutex
	batch ackBatch
}

// ackBatch is settles taken together, keyed in the order the keys first appeared.
type ackBatch struct {
	keys    []ackKey
	offsets map[ackKey]map[int64]struct{}
	count   int
}

func (b *ackBatch) add(k ackKey, offset int64) {
	if b.offsets == nil {
		b.offsets = make(map[ackKey]map[int64]struct{})
	}
	set, ok := b.offsets[k]
	if !ok {
		set = make(map[int64]struct{})
		b.offsets[k] = set
		b.keys = append(b.keys, k)
	}
	if _, dup := set[offset]; !dup {
		set[offset] = struct{}{}
		b.count++
	}
}

// add queues one settle and answers how many are waiting now.
func (p *ackPending) add(k ackKey, offset int64) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.batch.add(k, offset)
	return p.batch.count
}

func (p *ackPending) size() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.batch.count
}

// drain takes everything waiting.
func (p *ackPending) drain() ackBatch {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.batch
	p.batch = ackBatch{}
	return b
}

// restore puts back a batch that could not be sent.
func (p *ackPending) restore(b ackBatch) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range b.keys {
		for o := range b.offsets[k] {
			p.batch.add(k, o)
		}
	}
}

// ranges calls f for each run of consecutive offsets of each key (at most ackMaxRange wide).
func (b *ackBatch) ranges(f func(k ackKey, r *brookv1.OffsetRange)) {
	for _, k := range b.keys {
		set := b.offsets[k]
		sorted := make([]int64, 0, len(set))
		for o := range set {
			sorted = append(sorted, o)
		}
		slices.Sort(sorted)
		first, last := sorted[0], sorted[0]
		for _, o := range sorted[1:] {
			if o == last+1 && last-first+1 < ackMaxRange {
				last = o
				continue
			}
			f(k, ackRange(k, first, last))
			first, last = o, o
		}
		f(k, ackRange(k, first, last))
	}
}

func ackRange(k ackKey, first, last int64) *brookv1.OffsetRange {
	r := &brookv1.OffsetRange{Topic: k.topic, Partition: k.partition, FirstOffset: first}
	if last != first {
		r.LastOffset = &last
	}
	return r
}

// receiveRequest is the batch as a message on the Receive stream.
func (b *ackBatch) receiveRequest() *brookv1.ReceiveRequest {
	req := &brookv1.ReceiveRequest{}
	b.ranges(func(k ackKey, r *brookv1.OffsetRange) {
		switch k.kind {
		case ackKindAck:
			req.Acks = append(req.Acks, r)
		case ackKindNack, ackKindReject:
			req.Nacks = append(req.Nacks, &brookv1.Nack{Range: r, DelayMs: k.millis, Reject: k.kind == ackKindReject})
		case ackKindExtend:
			req.Extensions = append(req.Extensions, &brookv1.LeaseExtension{Range: r, LeaseMs: k.millis})
		}
	})
	return req
}

// settleRequest is the batch as a unary Settle call of a member.
func (b *ackBatch) settleRequest(group, memberID string) *brookv1.SettleRequest {
	r := b.receiveRequest()
	return &brookv1.SettleRequest{Group: group, MemberId: memberID, Acks: r.Acks, Nacks: r.Nacks, Extensions: r.Extensions}
}

// settleErrors is one *SettleError per range of the batch, all for err, as
// one error (nil for an empty batch).
func (b *ackBatch) settleErrors(err error) error {
	var errs []error
	if b.count > 0 {
		b.ranges(func(_ ackKey, r *brookv1.OffsetRange) {
			last := r.GetFirstOffset()
			if r.LastOffset != nil {
				last = r.GetLastOffset()
			}
			errs = append(errs, &SettleError{
				TopicPartition: TopicPartition{Topic: r.GetTopic(), Partition: r.GetPartition()},
				FirstOffset:    r.GetFirstOffset(),
				LastOffset:     last,
				Err:            err,
			})
		})
	}
	return errors.Join(errs...)
}
