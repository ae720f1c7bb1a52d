package brook

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// ackRangeText writes a range as topic/partition:first[..last] for comparisons.
func ackRangeText(r *brookv1.OffsetRange) string {
	s := fmt.Sprintf("%s/%d:%d", r.GetTopic(), r.GetPartition(), r.GetFirstOffset())
	if r.LastOffset != nil {
		s += fmt.Sprintf("..%d", r.GetLastOffset())
	}
	return s
}

func TestAckPendingSendsConsecutiveOffsetsOfOneKindAsOneRange(t *testing.T) {
	var p ackPending
	ack := ackKey{topic: "t", partition: 1, kind: ackKindAck}
	for _, o := range []int64{5, 3, 4, 10, 4} {
		p.add(ack, o)
	}
	p.add(ackKey{topic: "t", partition: 1, kind: ackKindNack, millis: 200}, 6)
	p.add(ackKey{topic: "t", partition: 1, kind: ackKindNack}, 11)
	p.add(ackKey{topic: "t", partition: 1, kind: ackKindReject}, 7)
	if n := p.add(ackKey{topic: "u", partition: 0, kind: ackKindExtend, millis: 1000}, 8); n != 8 {
		t.Fatalf("waiting: %d, want 8 (the second ack of 4 is the same settle)", n)
	}

	b := p.drain()
	if p.size() != 0 || b.count != 8 {
		t.Fatalf("after drain: %d waiting, batch of %d", p.size(), b.count)
	}
	req := b.settleRequest("g", "m-1")
	if req.GetGroup() != "g" || req.GetMemberId() != "m-1" {
		t.Fatalf("group/member: %q %q", req.GetGroup(), req.GetMemberId())
	}
	var acks []string
	for _, r := range req.GetAcks() {
		acks = append(acks, ackRangeText(r))
	}
	if got := strings.Join(acks, " "); got != "t/1:3..5 t/1:10" {
		t.Fatalf("acks %q", got)
	}
	var nacks []string
	for _, n := range req.GetNacks() {
		nacks = append(nacks, fmt.Sprintf("%s delay=%d reject=%v", ackRangeText(n.GetRange()), n.GetDelayMs(), n.GetReject()))
	}
	if got, want := strings.Join(nacks, ", "), "t/1:6 delay=200 reject=false, t/1:11 delay=0 reject=false, t/1:7 delay=0 reject=true"; got != want {
		t.Fatalf("nacks %q, want %q", got, want)
	}
	if len(req.GetExtensions()) != 1 || ackRangeText(req.GetExtensions()[0].GetRange()) != "u/0:8" ||
		req.GetExtensions()[0].GetLeaseMs() != 1000 {
		t.Fatalf("extensions %v", req.GetExtensions())
	}

	p.add(ack, 20)
	p.restore(b)
	if p.size() != 9 {
		t.Fatalf("after restore: %d waiting, want 9", p.size())
	}
	rest := p.drain()
	if got := len(rest.receiveRequest().GetAcks()); got != 3 {
		t.Fatalf("ack ranges after restore: %d, want 3 (3..5, 10, 20)", got)
	}
}

func TestAckSettleErrorsMatchTheirSentinelAndAreFoundInAJoin(t *testing.T) {
	last := int64(9)
	err := settleJoin([]*brookv1.SettleFailure{
		{Range: &brookv1.OffsetRange{Topic: "t", Partition: 2, FirstOffset: 4, LastOffset: &last},
			ErrorCode: brookv1.ErrorCode_ERROR_CODE_LEASE_EXPIRED, ErrorMessage: "the lease ran out"},
		{Range: &brookv1.OffsetRange{Topic: "t", Partition: 2, FirstOffset: 12},
			ErrorCode: brookv1.ErrorCode_ERROR_CODE_ALREADY_SETTLED},
	})
	if !errors.Is(err, ErrLeaseExpired) || !errors.Is(err, ErrAlreadySettled) || errors.Is(err, ErrNotLeased) {
		t.Fatalf("errors.Is wrong for %v", err)
	}
	list := SettleErrors(fmt.Errorf("flush: %w", err))
	if len(list) != 2 {
		t.Fatalf("SettleErrors: %v", list)
	}
	if e := list[0]; e.Topic != "t" || e.Partition != 2 || e.FirstOffset != 4 || e.LastOffset != 9 || !errors.Is(e, ErrLeaseExpired) {
		t.Fatalf("first: %+v", e)
	}
	if e := list[1]; e.FirstOffset != 12 || e.LastOffset != 12 {
		t.Fatalf("a range without last_offset is one offset: %+v", e)
	}
	if want := "brook: not settled: t/2 offsets 4..9: brook: LEASE_EXPIRED (t/2): the lease ran out"; list[0].Error() != want {
		t.Fatalf("message %q, want %q", list[0].Error(), want)
	}
	if settleJoin(nil) != nil || SettleErrors(nil) != nil || SettleErrors(errors.New("other")) != nil {
		t.Fatal("no failures must give no error")
	}
}

func TestAckConsumerConfigNamesEveryProblemAtOnce(t *testing.T) {
	_, err := NewAckConsumer(
		WithGroup(".."),
		WithTopics("ok", "bad/name"),
		WithAckMemberID(""),
		WithMaxOutstandingRecords(0),
		WithMaxOutstandingBytes(-1),
		WithAckMaxPollRecords(0),
		WithAckFlushInterval(-time.Millisecond),
		WithAckMaxBatch(0),
		WithRetryBackoff(time.Second, time.Millisecond),
		WithAckFailureHandler(nil),
	)
	var ce *ConfigError
	if !errors.Is(err, ErrInvalidConfig) || !errors.As(err, &ce) {
		t.Fatalf("got %v", err)
	}
	for _, want := range []string{"a broker is required", "WithGroup(\"..\")", "WithTopics(\"bad/name\")", "WithAckMemberID",
		"WithMaxOutstandingRecords(0)", "WithMaxOutstandingBytes(-1)", "WithAckMaxPollRecords(0)", "WithAckFlushInterval(-1ms)",
		"WithAckMaxBatch(0)", "WithRetryBackoff(1s, 1ms)", "WithAckFailureHandler"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q not named in %v", want, err)
		}
	}
	if len(ce.Problems) != 11 {
		t.Errorf("%d problems, want 11: %q", len(ce.Problems), ce.Problems)
	}

	_, err = NewAckConsumer(WithBroker("127.0.0.1:1"))
	if !errors.As(err, &ce) || len(ce.Problems) != 2 || ce.Client != "ack consumer" {
		t.Fatalf("without group and topics: %v", err)
	}
}

func TestAckTopicNameRule(t *testing.T) {
	for name, ok := range map[string]bool{
		"a": true, "A-z_0.9": true, strings.Repeat("x", 249): true,
		"": false, ".": false, "..": false, "a b": false, "ü": false, strings.Repeat("x", 250): false,
	} {
		if got := topicNameProblem(name) == ""; got != ok {
			t.Errorf("%q: valid=%v, want %v", name, got, ok)
		}
	}
}

// Without a broker: arguments are checked, Flush waits for a stream until its
// context ends, and Close ends the consumer (naming the settles it could not send).
func TestAckConsumerWithoutABroker(t *testing.T) {
	c, err := NewAckConsumer(WithBroker("127.0.0.1:1"), WithGroup("g"), WithTopics("t"),
		WithRetryBackoff(time.Millisecond, 5*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	rec := &AckRecord{Record: Record{Topic: "t", Offset: 3}}
	if err := c.Nack(rec, -time.Second); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("negative nack delay: %v", err)
	}
	if err := c.ExtendLease(rec, 2*time.Hour); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("lease of 2h: %v", err)
	}
	if err := c.Ack(nil); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("nil record: %v", err)
	}
	if err := c.Ack(rec); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := c.Flush(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("flush without a stream: %v", err)
	}
	if _, err := c.Poll(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("poll without a stream: %v", err)
	}
	if c.Stats().Reconnects == 0 || c.MemberID() != "" {
		t.Errorf("stats %+v, member %q", c.Stats(), c.MemberID())
	}
	closeCtx, cancelClose := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancelClose()
	err = c.Close(closeCtx) // waits for a stream until its ctx ends, then names what it could not send
	if se := SettleErrors(err); len(se) != 1 || !errors.Is(se[0], ErrSettleNotSent) || se[0].Topic != "t" ||
		se[0].FirstOffset != 3 || se[0].LastOffset != 3 {
		t.Errorf("close: %v", err)
	}
	if _, err := c.Poll(context.Background()); !errors.Is(err, ErrClientClosed) {
		t.Errorf("poll after close: %v", err)
	}
	if err := c.Ack(rec); !errors.Is(err, ErrClientClosed) {
		t.Errorf("ack after close: %v", err)
	}
	if err := c.Flush(context.Background()); !errors.Is(err, ErrClientClosed) {
		t.Errorf("flush after close: %v", err)
	}
	if err := c.Close(context.Background()); err != nil {
		t.Errorf("second close: %v", err)
	}
}
