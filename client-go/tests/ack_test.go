package tests

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"

	"github.com/brook-io/brook/client-go/brook"
	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

func TestAckEveryRecordIsDeliveredOnceAndAckedFromWorkerGoroutines(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	topic := b.createTopic(t, 2, nil)
	group := ackGroup(t, a)
	b.produceRaw(t, topic, 0, &brookv1.Record{Key: []byte("k"), Value: []byte("first"),
		Headers: []*brookv1.Header{{Key: "h", Value: []byte("x")}}})
	ackProduceValues(t, b, topic, 0, 49, "a")
	ackProduceValues(t, b, topic, 1, 50, "b")
	before := time.Now()
	c := ackConsumer(t, b, group, []string{topic})

	got := ackTake(t, c, 100)
	if len(got) != 100 {
		t.Fatalf("received %d records, want 100", len(got))
	}
	seen := map[brook.TopicPartition]map[int64]bool{}
	for _, r := range got {
		if r.DeliveryAttempt != 1 {
			t.Errorf("%v: attempt %d, want 1", r, r.DeliveryAttempt)
		}
		if !r.LeaseDeadline.After(before) {
			t.Errorf("%v: lease deadline %v is not after the start %v", r, r.LeaseDeadline, before)
		}
		tp := brook.TopicPartition{Topic: r.Topic, Partition: r.Partition}
		if seen[tp] == nil {
			seen[tp] = map[int64]bool{}
		}
		if seen[tp][r.Offset] {
			t.Errorf("%v delivered twice", r)
		}
		seen[tp][r.Offset] = true
		if r.Partition == 0 && r.Offset == 0 {
			if string(r.Key) != "k" || string(r.Value) != "first" || len(r.Headers) != 1 ||
				r.Headers[0].Key != "h" || string(r.Headers[0].Value) != "x" || r.Topic != topic {
				t.Errorf("first record: %+v", r.Record)
			}
		}
	}

	// Acks from worker goroutines, as queue consumers do.
	work := make(chan *brook.AckRecord)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for r := range work {
				if err := c.Ack(r); err != nil {
					t.Errorf("ack %v: %v", r, err)
				}
			}
		})
	}
	for _, r := range got {
		work <- r
	}
	close(work)
	wg.Wait()
	if err := c.Flush(ackCtx(t)); err != nil {
		t.Fatalf("flush: %v", err)
	}

	g := ackAwaitAllSettled(t, a, group)
	for _, p := range g.Partitions {
		if p.CommittedOffset != 50 || p.Lag != 0 || p.Redeliveries != 0 {
			t.Errorf("partition %+v: want committed 50, lag 0, no redelivery", p)
		}
	}
	if len(g.Members) != 1 || !g.Members[0].Connected || g.Members[0].MemberID != c.MemberID() || c.MemberID() == "" {
		t.Errorf("members %+v, consumer's id %q", g.Members, c.MemberID())
	}
	if again := ackPoll(t, c, 300*time.Millisecond); len(again) != 0 {
		t.Errorf("delivered again: %v", again)
	}
	if s := c.Stats(); s.ReceivedRecords != 100 || s.RedeliveredRecords != 0 || s.SettlesQueued != 100 || s.SettleFailures != 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestAckNackWithADelayIsDeliveredAgainWithAttemptTwo(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	topic := b.createTopic(t, 1, nil)
	group := ackGroup(t, a)
	ackProduceValues(t, b, topic, 0, 2, "v")
	c := ackConsumer(t, b, group, []string{topic})
	got := ackTake(t, c, 2)
	slices.SortFunc(got, func(x, y *brook.AckRecord) int { return int(x.Offset - y.Offset) })

	const delay = 400 * time.Millisecond
	nacked := time.Now()
	if err := c.Nack(got[0], delay); err != nil {
		t.Fatal(err)
	}
	if err := c.Ack(got[1]); err != nil {
		t.Fatal(err)
	}
	again := ackTake(t, c, 1)
	if elapsed := time.Since(nacked); elapsed < delay {
		t.Errorf("delivered again after %v, before the nack's delay of %v", elapsed, delay)
	}
	r := again[0]
	if len(again) != 1 || r.Offset != got[0].Offset || string(r.Value) != "v-0" || r.DeliveryAttempt != 2 {
		t.Fatalf("again: %v (value %q)", again, r.Value)
	}
	if err := c.Ack(r); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(ackCtx(t)); err != nil {
		t.Fatalf("flush: %v", err)
	}
	if g := ackAwaitAllSettled(t, a, group); g.Partitions[0].Redeliveries != 1 {
		t.Errorf("redeliveries %d, want 1", g.Partitions[0].Redeliveries)
	}
	if s := c.Stats(); s.RedeliveredRecords != 1 || s.ReceivedRecords != 3 {
		t.Errorf("stats %+v", s)
	}
}

func TestAckRejectedRecordsAndRecordsPastMaxDeliveryAttemptsAreDeadLettered(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	topic := b.createTopic(t, 1, nil)
	group := ackGroup(t, a, "max.delivery.attempts", "2")
	b.produceRaw(t, topic, 0,
		&brookv1.Record{Key: []byte("k"), Value: []byte("poison"), Headers: []*brookv1.Header{{Key: "h", Value: []byte("x")}}},
		&brookv1.Record{Value: []byte("reject-me")})
	c := ackConsumer(t, b, group, []string{topic})

	var poisonAttempts []int32
	deadline := time.Now().Add(20 * time.Second)
	for len(poisonAttempts) < 2 && time.Now().Before(deadline) {
		for _, r := range ackPoll(t, c, 200*time.Millisecond) {
			var err error
			if string(r.Value) == "reject-me" {
				err = c.Reject(r)
			} else {
				poisonAttempts = append(poisonAttempts, r.DeliveryAttempt)
				err = c.Nack(r, 0)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if !slices.Equal(poisonAttempts, []int32{1, 2}) {
		t.Fatalf("attempts of the poison record: %v, want [1 2]", poisonAttempts)
	}
	g := ackAwaitAllSettled(t, a, group)
	if n := g.Partitions[0].DeadLetteredRecords; n != 2 {
		t.Errorf("dead-lettered %d, want 2", n)
	}
	if again := ackPoll(t, c, 300*time.Millisecond); len(again) != 0 {
		t.Errorf("a third delivery: %v", again)
	}

	dlq := group + ".dlq"
	if g.Config["dead.letter.topic"] != dlq {
		t.Errorf("dead.letter.topic %q, want %q", g.Config["dead.letter.topic"], dlq)
	}
	info, err := a.DescribeTopic(ackCtx(t), dlq)
	if err != nil {
		t.Fatalf("the dead-letter topic: %v", err)
	}
	byValue := map[string]map[string]string{}
	for _, p := range info.Partitions {
		for _, r := range b.fetchAll(t, dlq, p.Partition) {
			byValue[string(r.GetValue())] = ackHeaders(r.GetHeaders())
		}
	}
	if len(byValue) != 2 {
		t.Fatalf("dead letters: %v", byValue)
	}
	poison := byValue["poison"]
	for k, v := range map[string]string{"h": "x", "brook.dlq.topic": topic, "brook.dlq.partition": "0", "brook.dlq.offset": "0",
		"brook.dlq.attempts": "2", "brook.dlq.reason": "max_delivery_attempts"} {
		if poison[k] != v {
			t.Errorf("poison's header %s = %q, want %q (all: %v)", k, poison[k], v, poison)
		}
	}
	if rej := byValue["reject-me"]; rej["brook.dlq.offset"] != "1" || rej["brook.dlq.reason"] != "rejected" {
		t.Errorf("reject-me's headers %v", rej)
	}
}

func TestAckAnExpiredLeaseIsDeliveredAgainAndADoubleAckIsAlreadySettled(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	topic := b.createTopic(t, 1, nil)
	group := ackGroup(t, a, "ack.timeout.ms", "500")
	ackProduceValues(t, b, topic, 0, 1, "slow")
	c := ackConsumer(t, b, group, []string{topic})
	first := ackTake(t, c, 1)[0]
	if first.DeliveryAttempt != 1 {
		t.Fatalf("first delivery: attempt %d", first.DeliveryAttempt)
	}
	// Not settled: when the lease runs out it comes again (to the only member).
	again := ackTake(t, c, 1)[0]
	if again.Offset != first.Offset || again.DeliveryAttempt != 2 || !again.LeaseDeadline.After(first.LeaseDeadline) {
		t.Fatalf("again: %v, deadline %v (first's %v)", again, again.LeaseDeadline, first.LeaseDeadline)
	}
	if err := c.Ack(again); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(ackCtx(t)); err != nil {
		t.Fatalf("flush: %v", err)
	}
	if err := c.Ack(again); err != nil {
		t.Fatal(err)
	}
	err := c.Flush(ackCtx(t))
	if !errors.Is(err, brook.ErrAlreadySettled) {
		t.Fatalf("a second ack: %v, want ErrAlreadySettled", err)
	}
	list := brook.SettleErrors(err)
	if len(list) != 1 || list[0].Topic != topic || list[0].Partition != 0 || list[0].FirstOffset != first.Offset ||
		list[0].LastOffset != first.Offset {
		t.Fatalf("refusals %v", list)
	}
	var be *brook.BrokerError
	if !errors.As(err, &be) || be.Reason != "ALREADY_SETTLED" {
		t.Errorf("broker error %+v", be)
	}
	ackAwaitAllSettled(t, a, group)
	if s := c.Stats(); s.SettleFailures != 1 || s.SettleCalls != 2 {
		t.Errorf("stats %+v", s)
	}
}

func TestAckAnExtendedLeaseOutlivesTheAckTimeout(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	topic := b.createTopic(t, 1, nil)
	group := ackGroup(t, a, "ack.timeout.ms", "400")
	ackProduceValues(t, b, topic, 0, 1, "slow-job")
	c := ackConsumer(t, b, group, []string{topic})
	r := ackTake(t, c, 1)[0]
	if err := c.ExtendLease(r, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(ackCtx(t)); err != nil {
		t.Fatalf("the extension: %v", err)
	}
	// Until well past the first deadline: without the extension the record would come again.
	var again []*brook.AckRecord
	for time.Now().Before(r.LeaseDeadline.Add(1500 * time.Millisecond)) {
		again = append(again, ackPoll(t, c, 100*time.Millisecond)...)
	}
	if len(again) != 0 {
		t.Fatalf("delivered again despite the extension: %v", again)
	}
	if err := c.Ack(r); err != nil {
		t.Fatal(err)
	}
	if err := c.Flush(ackCtx(t)); err != nil {
		t.Fatalf("flush: %v", err)
	}
	if g := ackAwaitAllSettled(t, a, group); g.Partitions[0].Redeliveries != 0 {
		t.Errorf("redeliveries %d", g.Partitions[0].Redeliveries)
	}
}

func TestAckALateAckAfterTheLeaseRanOutFailsWithLeaseExpired(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	topic := b.createTopic(t, 1, nil)
	quiet := b.createTopic(t, 1, nil)
	group := ackGroup(t, a, "ack.timeout.ms", "500")
	ackProduceValues(t, b, topic, 0, 1, "v")
	member := group + "-worker"

	first := ackConsumer(t, b, group, []string{topic}, brook.WithAckMemberID(member))
	r := ackTake(t, first, 1)[0]
	if first.MemberID() != member {
		t.Errorf("member id %q, want %q", first.MemberID(), member)
	}
	// Polled, not settled: with a member id the lease outlives the stream, until it runs out.
	if err := first.Close(ackCtx(t)); err != nil {
		t.Fatalf("close: %v", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for ackMemberLeases(t, a, group, member) > 0 || time.Now().Before(r.LeaseDeadline.Add(200*time.Millisecond)) {
		if time.Now().After(deadline) {
			t.Fatal("the lease did not run out in 20 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The same member again, on a topic without records, so that nothing leases the record to it again.
	late := ackConsumer(t, b, group, []string{quiet}, brook.WithAckMemberID(member))
	if err := late.Ack(r); err != nil {
		t.Fatal(err)
	}
	err := late.Flush(ackCtx(t))
	if !errors.Is(err, brook.ErrLeaseExpired) {
		t.Fatalf("a late ack: %v, want ErrLeaseExpired", err)
	}
	if list := brook.SettleErrors(err); len(list) != 1 || list[0].Topic != topic || list[0].FirstOffset != r.Offset {
		t.Fatalf("refusals %v", list)
	}
}

// ackMemberLeases is how many records the group's member holds.
func ackMemberLeases(t testing.TB, a *brook.Admin, group, member string) int64 {
	t.Helper()
	g, err := a.DescribeGroup(ackCtx(t), group)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range g.Members {
		if m.MemberID == member {
			return m.LeasedRecords
		}
	}
	return 0
}

func TestAckFlowControlKeepsAtMostMaxOutstandingUnsettledRecordsInHand(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	topic := b.createTopic(t, 1, nil)
	group := ackGroup(t, a)
	ackProduceValues(t, b, topic, 0, 30, "v")
	c := ackConsumer(t, b, group, []string{topic}, brook.WithMaxOutstandingRecords(5))

	held := ackTake(t, c, 5)
	for range 3 {
		held = append(held, ackPoll(t, c, 100*time.Millisecond)...)
	}
	if len(held) != 5 {
		t.Fatalf("held without settling: %d, want 5", len(held))
	}
	seen := map[int64]bool{}
	deadline := time.Now().Add(20 * time.Second)
	for len(seen) < 30 && time.Now().Before(deadline) {
		if len(held) > 5 {
			t.Fatalf("%d unsettled records in hand, at most 5 allowed", len(held))
		}
		for _, r := range held {
			seen[r.Offset] = true
			if err := c.Ack(r); err != nil { // settling makes room: the broker sends more
				t.Fatal(err)
			}
		}
		held = ackPoll(t, c, 100*time.Millisecond)
	}
	if len(seen) != 30 {
		t.Fatalf("saw %d records, want 30", len(seen))
	}
	ackAwaitAllSettled(t, a, group)
}

// ackSendCounter counts the messages the client sends on Receive streams: what goes over the wire.
type ackSendCounter struct{ sent atomic.Int64 }

func (c *ackSendCounter) intercept(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string,
	streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	s, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil || method != brookv1.AckService_Receive_FullMethodName {
		return s, err
	}
	return &ackCountingStream{ClientStream: s, counter: c}, nil
}

type ackCountingStream struct {
	grpc.ClientStream
	counter *ackSendCounter
}

func (s *ackCountingStream) SendMsg(m any) error {
	s.counter.sent.Add(1)
	return s.ClientStream.SendMsg(m)
}

func TestAckAcksAreBatchedManyToAStreamMessage(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	topic := b.createTopic(t, 2, nil)
	group := ackGroup(t, a)
	ackProduceValues(t, b, topic, 0, 100, "a")
	ackProduceValues(t, b, topic, 1, 100, "b")
	counter := &ackSendCounter{}
	// No timed sends: acks leave only when 50 are waiting.
	c := ackConsumer(t, b, group, []string{topic}, brook.WithAckMaxBatch(50), brook.WithAckFlushInterval(time.Minute),
		brook.WithDialOptions(grpc.WithStreamInterceptor(counter.intercept)))
	got := ackTake(t, c, 200)
	for _, r := range got {
		if err := c.Ack(r); err != nil { // 200 calls, one record each
			t.Fatal(err)
		}
	}
	// Each time 50 wait, the sending goroutine is woken and sends all that
	// wait by then, in one stream message. When it lagged behind, a wake took
	// more than 50, so up to 49 may be left at the end: those wait for the
	// (one minute) interval.
	ackAwaitGroup(t, a, group, "at most 49 unsettled", func(g brook.GroupInfo) bool {
		unsettled := int64(0)
		for _, p := range g.Partitions {
			unsettled += p.UnsettledRecords
		}
		return unsettled < 50
	})
	s := c.Stats()
	if s.SettlesQueued != 200 || s.SettleMessages < 1 || s.SettleMessages > 4 || s.SettleCalls != 0 {
		t.Errorf("stats %+v: want 200 acks queued, sent in 1 to 4 stream messages and no Settle call", s)
	}
	// Flush sends the rest in one Settle call.
	if err := c.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	ackAwaitAllSettled(t, a, group)
	s = c.Stats()
	if n := counter.sent.Load(); n != 1+s.SettleMessages {
		t.Errorf("stream messages sent: %d, want the first plus the %d settle messages", n, s.SettleMessages)
	}
	if s.SettleCalls > 1 {
		t.Errorf("stats %+v: want at most one Settle call", s)
	}
}

func TestAckTwoMembersShareTheWork(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	topic := b.createTopic(t, 2, nil)
	group := ackGroup(t, a)
	consumers := []*brook.AckConsumer{
		ackConsumer(t, b, group, []string{topic}, brook.WithMaxOutstandingRecords(10)),
		ackConsumer(t, b, group, []string{topic}, brook.WithMaxOutstandingRecords(10)),
	}
	ackAwaitMember(t, consumers[0])
	ackAwaitMember(t, consumers[1])
	deadline := time.Now().Add(20 * time.Second)
	ackProduceValues(t, b, topic, 0, 100, "a")
	ackProduceValues(t, b, topic, 1, 100, "b")

	var mu sync.Mutex
	byValue := map[string]int{}
	counts := make([]int, 2)
	var wg sync.WaitGroup
	for i, c := range consumers {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				mu.Lock()
				done := len(byValue) >= 200
				mu.Unlock()
				if done {
					return
				}
				ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
				recs, err := c.Poll(ctx)
				cancel()
				if err != nil && !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("poll: %v", err)
					return
				}
				for _, r := range recs {
					mu.Lock()
					byValue[string(r.Value)]++
					counts[i]++
					mu.Unlock()
					time.Sleep(time.Millisecond) // some work
					if err := c.Ack(r); err != nil {
						t.Errorf("ack: %v", err)
					}
				}
			}
		})
	}
	wg.Wait()
	if len(byValue) != 200 {
		t.Fatalf("received %d distinct records, want 200", len(byValue))
	}
	for v, n := range byValue {
		if n != 1 {
			t.Errorf("%s delivered %d times", v, n)
		}
	}
	if counts[0] == 0 || counts[1] == 0 {
		t.Errorf("one member did all the work: %v", counts)
	}
	g := ackAwaitAllSettled(t, a, group)
	if len(g.Members) != 2 {
		t.Errorf("members %+v", g.Members)
	}
	t.Logf("records per member: %v", counts)
}

func TestAckErrorsThatEndTheConsumerAreReturnedByPoll(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	unknown := ackConsumer(t, b, ackGroupName(t), []string{"no-such-topic-" + ackGroupName(t)})
	if err := ackPollUntilError(t, unknown); !errors.Is(err, brook.ErrUnknownTopic) {
		t.Errorf("unknown topic: %v", err)
	}
	if err := unknown.Flush(ackCtx(t)); err != nil {
		t.Errorf("flush with nothing queued: %v", err)
	}

	topic := b.createTopic(t, 1, nil)
	offsets := ackGroupName(t)
	if _, err := a.CreateGroup(ackCtx(t), offsets, brook.GroupModeOffset, nil); err != nil {
		t.Fatal(err)
	}
	wrongMode := ackConsumer(t, b, offsets, []string{topic})
	if err := ackPollUntilError(t, wrongMode); !errors.Is(err, brook.ErrInconsistentGroupMode) {
		t.Errorf("an offset-mode group: %v", err)
	}

	// A second consumer with the same member id takes over; the first one ends.
	group := ackGroup(t, a)
	member := group + "-same"
	older := ackConsumer(t, b, group, []string{topic}, brook.WithAckMemberID(member))
	ackAwaitMember(t, older)
	newer := ackConsumer(t, b, group, []string{topic}, brook.WithAckMemberID(member))
	ackAwaitMember(t, newer)
	err := ackPollUntilError(t, older)
	var be *brook.BrokerError
	if !errors.As(err, &be) || be.GRPCCode != codes.Aborted || !errors.Is(err, brook.ErrMemberReplaced) {
		t.Errorf("the older consumer with the same member id: %v, want ABORTED, MEMBER_REPLACED", err)
	}
	if err := newer.Flush(ackCtx(t)); err != nil {
		t.Errorf("the newer consumer: %v", err)
	}
}

// ackAwaitMember waits until the consumer's stream is open (20 s at most).
func ackAwaitMember(t testing.TB, c *brook.AckConsumer) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for c.MemberID() == "" {
		if time.Now().After(deadline) {
			t.Fatal("no stream in 20 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ackPollUntilError polls until Poll fails with something else than its deadline (20 s at most).
func ackPollUntilError(t testing.TB, c *brook.AckConsumer) error {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		recs, err := c.Poll(ctx)
		cancel()
		if len(recs) > 0 {
			t.Fatalf("records: %v", recs)
		}
		if err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
	}
	t.Fatal("no error in 20 s")
	return nil
}

func TestAckConfigErrorsAreNamedTogether(t *testing.T) {
	t.Parallel()
	_, err := brook.NewAckConsumer(brook.WithBroker("localhost"), brook.WithTopics("a b"), brook.WithMaxOutstandingRecords(-1),
		brook.WithAckFlushInterval(time.Hour))
	var ce *brook.ConfigError
	if !errors.Is(err, brook.ErrInvalidConfig) || !errors.As(err, &ce) {
		t.Fatalf("got %v", err)
	}
	for _, want := range []string{"WithBroker(\"localhost\")", "WithGroup", "WithTopics(\"a b\")", "WithMaxOutstandingRecords(-1)",
		"WithAckFlushInterval(1h0m0s)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s not named in %v", want, err)
		}
	}
	if len(ce.Problems) != 5 {
		t.Errorf("%d problems: %q", len(ce.Problems), ce.Problems)
	}
}

// Close sends the last acks, and a member with an id hands back the records it received but never returned.
func TestAckCloseSendsTheLastAcksAndHandsBackRecordsNeverPolled(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	topic := b.createTopic(t, 1, nil)
	group := ackGroup(t, a, "ack.timeout.ms", "3600000") // a lease running out is no way back within this test
	ackProduceValues(t, b, topic, 0, 5, "v")
	first := ackConsumer(t, b, group, []string{topic}, brook.WithAckMemberID(group+"-a"), brook.WithAckMaxPollRecords(1),
		brook.WithAckFlushInterval(time.Minute))
	polled := ackTake(t, first, 1)[0]
	deadline := time.Now().Add(20 * time.Second)
	for first.Stats().ReceivedRecords < 5 { // the other four arrive and wait, never polled
		if time.Now().After(deadline) {
			t.Fatalf("received %d records in 20 s, want 5", first.Stats().ReceivedRecords)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := first.Ack(polled); err != nil { // waits for the timed send, which Close makes first
		t.Fatal(err)
	}
	if err := first.Close(ackCtx(t)); err != nil {
		t.Fatalf("close: %v", err)
	}
	if s := first.Stats(); s.SettleMessages != 1 || s.SettleCalls != 1 || s.SettleFailures != 0 {
		t.Errorf("stats %+v: want the ack in the stream's last message and the hand-back in a Settle call", s)
	}

	second := ackConsumer(t, b, group, []string{topic})
	rest := ackTake(t, second, 4)
	for _, r := range rest {
		if r.Offset == polled.Offset || r.DeliveryAttempt != 2 {
			t.Errorf("%v: want another offset than %d, attempt 2", r, polled.Offset)
		}
		if err := second.Ack(r); err != nil {
			t.Fatal(err)
		}
	}
	if len(rest) != 4 {
		t.Errorf("received %v", rest)
	}
	ackAwaitAllSettled(t, a, group)
}

// Not parallel: it counts goroutines.
func TestAckCloseEndsEveryGoroutine(t *testing.T) {
	b := sharedBroker
	a := ackAdmin(t, b)
	topic := b.createTopic(t, 2, nil)
	group := ackGroup(t, a)
	ackProduceValues(t, b, topic, 0, 20, "a")
	ackProduceValues(t, b, topic, 1, 20, "b")
	check := leakCheck(t)

	c, err := brook.NewAckConsumer(brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithTopics(topic),
		brook.WithAckFlushInterval(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	got := ackTake(t, c, 40)
	for i, r := range got {
		if i%2 == 0 {
			if err := c.Ack(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A Poll blocked in another goroutine is ended by Close.
	polled := make(chan error, 1)
	go func() {
		_, err := c.Poll(context.Background())
		polled <- err
	}()
	if err := c.Close(ackCtx(t)); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := <-polled; !errors.Is(err, brook.ErrClientClosed) {
		t.Errorf("a blocked poll ended with %v", err)
	}
	check()

	// The acks were applied; the unsettled half was handed back when the stream ended.
	g, err := a.DescribeGroup(ackCtx(t), group)
	if err != nil {
		t.Fatal(err)
	}
	var unsettled int64
	for _, p := range g.Partitions {
		unsettled += p.UnsettledRecords
	}
	if unsettled != 20 {
		t.Errorf("unsettled after close: %d, want 20", unsettled)
	}
	t.Logf("stats %+v", c.Stats())
}
