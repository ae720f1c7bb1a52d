package brook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

func TestConsumerConfigNamesEveryProblem(t *testing.T) {
	_, err := NewConsumer(
		WithBroker("no-port"),
		WithTopics("orders"),
		WithSessionTimeout(0),
		WithRebalanceTimeout(-time.Second),
		WithResetPosition(AtOffset(3)),
		WithAutoCommit(true),
		WithAutoCommitInterval(0),
		WithMaxPollRecords(0),
		WithFetchMaxBytes(64<<20),
		WithFetchMaxWait(time.Minute),
		WithRetryBackoff(time.Second, time.Millisecond),
		WithLogger(nil),
		nil,
	)
	var ce *ConfigError
	if !errors.Is(err, ErrInvalidConfig) || !errors.As(err, &ce) {
		t.Fatalf("got %v, want a *ConfigError", err)
	}
	if ce.Client != "consumer" {
		t.Errorf("client %q", ce.Client)
	}
	for _, want := range []string{"WithBroker", "WithTopics needs WithGroup", "WithSessionTimeout", "WithRebalanceTimeout",
		"WithResetPosition", "WithAutoCommit(true)", "WithAutoCommitInterval", "WithMaxPollRecords", "WithFetchMaxBytes",
		"WithFetchMaxWait", "WithRetryBackoff", "WithLogger", "nil option"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q is not named in: %v", want, err)
		}
	}
	if len(ce.Problems) != 13 {
		t.Errorf("%d problems, want 13: %q", len(ce.Problems), ce.Problems)
	}
}

func TestConsumerConfigChecksNames(t *testing.T) {
	_, err := NewConsumer(WithBroker("localhost:7070"), WithGroup("bad group"), WithTopics("ok", "..", ""))
	var ce *ConfigError
	if !errors.As(err, &ce) || len(ce.Problems) != 3 {
		t.Fatalf("got %v, want 3 problems (the group and two topics)", err)
	}
}

func TestConsumerConfigChecksTheGroupInstanceID(t *testing.T) {
	_, err := NewConsumer(WithBroker("localhost:7070"), WithGroupInstanceID("host 1"))
	var ce *ConfigError
	if !errors.As(err, &ce) || len(ce.Problems) != 2 {
		t.Fatalf("got %v, want 2 problems (the id's characters, no group)", err)
	}
	c, err := NewConsumer(WithBroker("localhost:7070"), WithGroup("g"), WithGroupInstanceID("host-1"))
	if err != nil {
		t.Fatal(err)
	}
	_ = c.Close(context.Background())
}

func TestConsumerDefaultsNeedNoBroker(t *testing.T) {
	c, err := NewConsumer(WithBroker("localhost:1")) // nothing listens there: no call is made
	if err != nil {
		t.Fatal(err)
	}
	if c.cfg.autoCommitOn() || c.cfg.reset != Latest || c.cfg.maxPollRecords != 500 || c.cfg.autoCommitInterval != 5*time.Second {
		t.Errorf("defaults: %+v", c.cfg)
	}
	if _, err := c.Poll(context.Background()); err == nil || errors.Is(err, ErrClientClosed) {
		t.Errorf("Poll without an assignment gave %v", err)
	}
	if err := c.CommitSync(context.Background()); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("CommitSync without a group gave %v", err)
	}
	tp := TopicPartition{Topic: "t", Partition: 0}
	if err := c.Seek(tp, 1); err == nil {
		t.Error("Seek of a partition not assigned must fail")
	}
	if err := c.Assign(tp, tp); err != nil {
		t.Fatal(err)
	}
	if got := c.Assignment(); !slices.Equal(got, []TopicPartition{tp}) {
		t.Errorf("assignment %v", got)
	}
	if err := c.Seek(tp, 7); err != nil {
		t.Fatal(err)
	}
	if pos, err := c.Position(context.Background(), tp); err != nil || pos != 7 {
		t.Errorf("position %d, %v", pos, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Poll(ctx); !errors.Is(err, ErrClientClosed) {
		t.Errorf("Poll after Close gave %v", err)
	}
	if err := c.Close(ctx); err != nil {
		t.Errorf("second Close: %v", err)
	}

	g, err := NewConsumer(WithBroker("localhost:1"), WithGroup("g"))
	if err != nil {
		t.Fatal(err)
	}
	if !g.cfg.autoCommitOn() {
		t.Error("auto commit must default to on with a group")
	}
	_ = g.Close(ctx)
}

func TestConsumerPartitionsRotateAndDropStaleResults(t *testing.T) {
	var s consumerPartitions
	a, b, c := TopicPartition{"a", 0}, TopicPartition{"a", 1}, TopicPartition{"b", 0}
	s.assign([]TopicPartition{c, a, b})
	if got := s.assigned(); !slices.Equal(got, []TopicPartition{a, b, c}) {
		t.Fatalf("assigned %v", got)
	}
	if n := len(s.fetchOrder()); n != 0 {
		t.Fatalf("%d fetchable before any position is known", n)
	}
	for _, tp := range []TopicPartition{a, b, c} {
		s.seek(s.get(tp), 0)
	}
	var firsts []TopicPartition
	for range 3 {
		firsts = append(firsts, s.fetchOrder()[0].tp)
	}
	if !slices.Equal(firsts, []TopicPartition{a, b, c}) {
		t.Errorf("each partition must go first in turn: %v", firsts)
	}
	ref := s.fetchOrder()[0]
	if !s.current(ref) {
		t.Fatal("a fresh reference must be current")
	}
	s.seek(ref.state, 5)
	if s.current(ref) {
		t.Error("a seek must make earlier references stale")
	}
	ref = consumerPartitionRef{tp: a, state: s.get(a), epoch: s.get(a).epoch}
	s.assign([]TopicPartition{b})
	if s.current(ref) || s.get(a) != nil {
		t.Error("a revoked partition must be stale")
	}
	s.assign([]TopicPartition{a, b})
	if s.current(ref) || s.get(a).known {
		t.Error("a partition assigned again starts unknown")
	}
	if !s.get(b).known {
		t.Error("a partition kept keeps its position")
	}
}

// consumerFakeGroups is a GroupService that fences commits and asks for a rejoin on demand.
type consumerFakeGroups struct {
	brookv1.UnimplementedGroupServiceServer
	mu      sync.Mutex
	joins   int
	fence   bool
	rejoin  bool
	commits []string
	leaves  int
}

func (f *consumerFakeGroups) JoinGroup(_ context.Context, r *brookv1.JoinGroupRequest) (*brookv1.JoinGroupResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.joins++
	f.rejoin = false
	return &brookv1.JoinGroupResponse{
		MemberId:            fmt.Sprintf("m-%d", f.joins),
		Generation:          int32(f.joins),
		Assignment:          []*brookv1.TopicPartitions{{Topic: r.GetTopics()[0], Partitions: []int32{0}}},
		HeartbeatIntervalMs: 20,
	}, nil
}

func (f *consumerFakeGroups) Heartbeat(context.Context, *brookv1.HeartbeatRequest) (*brookv1.HeartbeatResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return &brookv1.HeartbeatResponse{Rejoin: f.rejoin}, nil
}

func (f *consumerFakeGroups) LeaveGroup(context.Context, *brookv1.LeaveGroupRequest) (*brookv1.LeaveGroupResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.leaves++
	return &brookv1.LeaveGroupResponse{}, nil
}

func (f *consumerFakeGroups) CommitOffsets(_ context.Context, r *brookv1.CommitOffsetsRequest) (*brookv1.CommitOffsetsResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fence {
		st, _ := status.New(codes.Aborted, "generation 1 is not the current one").
			WithDetails(&errdetails.ErrorInfo{Reason: "ILLEGAL_GENERATION", Domain: "brook.v1"})
		return nil, st.Err()
	}
	resp := &brookv1.CommitOffsetsResponse{}
	for _, o := range r.GetOffsets() {
		f.commits = append(f.commits, fmt.Sprintf("%s@%d:%s/%d=%d", r.GetMemberId(), r.GetGeneration(), o.GetTopic(), o.GetPartition(), o.GetOffset()))
		resp.Results = append(resp.Results, &brookv1.CommitResult{Topic: o.GetTopic(), Partition: o.GetPartition()})
	}
	return resp, nil
}

func (f *consumerFakeGroups) FetchCommittedOffsets(context.Context, *brookv1.FetchCommittedOffsetsRequest) (*brookv1.FetchCommittedOffsetsResponse, error) {
	return &brookv1.FetchCommittedOffsetsResponse{}, nil
}

// consumerFakeFetches answers every fetch with one record at the offset asked for.
type consumerFakeFetches struct {
	brookv1.UnimplementedFetchServiceServer
}

func (consumerFakeFetches) ListOffsets(_ context.Context, r *brookv1.ListOffsetsRequest) (*brookv1.ListOffsetsResponse, error) {
	resp := &brookv1.ListOffsetsResponse{}
	for _, q := range r.GetQueries() {
		resp.Answers = append(resp.Answers, &brookv1.OffsetAnswer{Topic: q.GetTopic(), Partition: q.GetPartition()})
	}
	return resp, nil
}

func (consumerFakeFetches) Fetch(_ context.Context, r *brookv1.FetchRequest) (*brookv1.FetchResponse, error) {
	resp := &brookv1.FetchResponse{}
	for _, p := range r.GetPartitions() {
		resp.Partitions = append(resp.Partitions, &brookv1.PartitionRecords{
			Topic: p.GetTopic(), Partition: p.GetPartition(),
			Records:    []*brookv1.Record{{Value: []byte("x"), Offset: p.GetOffset()}},
			NextOffset: p.GetOffset() + 1, EndOffset: p.GetOffset() + 1,
		})
	}
	return resp, nil
}

func consumerStartFake(t *testing.T, groups *consumerFakeGroups) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	brookv1.RegisterGroupServiceServer(srv, groups)
	brookv1.RegisterFetchServiceServer(srv, consumerFakeFetches{})
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	return lis.Addr().String()
}

// A fenced commit matches ErrCommitFailed and the broker's error; the next
// Poll reports the partitions lost and joins again. A rejoin asked by a
// heartbeat runs the revoke callback before the next JoinGroup.
func TestConsumerFencedCommitAndRejoins(t *testing.T) {
	fake := &consumerFakeGroups{}
	addr := consumerStartFake(t, fake)
	var mu sync.Mutex
	var events []string
	note := func(what string, tps []TopicPartition) {
		mu.Lock()
		defer mu.Unlock()
		fake.mu.Lock()
		joins := fake.joins
		fake.mu.Unlock()
		events = append(events, fmt.Sprintf("%s%v@join%d", what, tps, joins))
	}
	var c *Consumer
	c, err := NewConsumer(WithBroker(addr), WithGroup("g"), WithTopics("t"), WithAutoCommit(false),
		WithFetchMaxWait(50*time.Millisecond),
		WithOnAssigned(func(_ context.Context, tps []TopicPartition) { note("assigned", tps) }),
		WithOnLost(func(_ context.Context, tps []TopicPartition) { note("lost", tps) }),
		WithOnRevoked(func(ctx context.Context, tps []TopicPartition) {
			note("revoked", tps)
			if err := c.CommitSync(ctx); err != nil {
				t.Errorf("commit in the revoke callback: %v", err)
			}
		}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	defer func() { _ = c.Close(ctx) }()

	if recs, err := c.Poll(ctx); err != nil || len(recs) != 1 || recs[0].Offset != 0 {
		t.Fatalf("first poll: %v, %v", recs, err)
	}
	if md := c.GroupMetadata(); md.MemberID != "m-1" || md.Generation != 1 {
		t.Fatalf("metadata %+v", md)
	}

	fake.mu.Lock()
	fake.fence = true
	fake.mu.Unlock()
	err = c.CommitSync(ctx)
	var be *BrokerError
	if !errors.Is(err, ErrCommitFailed) || !errors.Is(err, ErrIllegalGeneration) || !errors.As(err, &be) {
		t.Fatalf("fenced commit gave %v", err)
	}
	if md := c.GroupMetadata(); md.Generation != -1 {
		t.Errorf("a fenced member must hold no generation: %+v", md)
	}
	if err := c.CommitSync(ctx); !errors.Is(err, ErrCommitFailed) {
		t.Errorf("a commit while not a member gave %v", err)
	}
	fake.mu.Lock()
	fake.fence = false
	fake.mu.Unlock()

	if recs, err := c.Poll(ctx); err != nil || len(recs) != 1 || recs[0].Offset != 0 {
		t.Fatalf("poll after the loss: %v, %v (the position must come back from the group, nothing committed)", recs, err)
	}
	if md := c.GroupMetadata(); md.MemberID != "m-2" || md.Generation != 2 {
		t.Fatalf("metadata after rejoining %+v", md)
	}

	fake.mu.Lock()
	fake.rejoin = true
	fake.mu.Unlock()
	for {
		if _, err := c.Poll(ctx); err != nil {
			t.Fatalf("poll while a rebalance is asked: %v", err)
		}
		fake.mu.Lock()
		joins := fake.joins
		fake.mu.Unlock()
		if joins == 3 {
			break
		}
	}
	mu.Lock()
	got := strings.Join(events, " ")
	mu.Unlock()
	want := "assigned[{t 0}]@join1 lost[{t 0}]@join1 assigned[{t 0}]@join2 revoked[{t 0}]@join2 assigned[{t 0}]@join3"
	if got != want {
		t.Errorf("events\n got %s\nwant %s", got, want)
	}
	fake.mu.Lock()
	commits := slices.Clone(fake.commits)
	fake.mu.Unlock()
	if len(commits) == 0 || !strings.HasPrefix(commits[len(commits)-1], "m-2@2:t/0=") {
		t.Errorf("the revoke callback's commit must be made as m-2 in generation 2: %v", commits)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if fake.leaves != 1 {
		t.Errorf("%d LeaveGroup calls, want 1", fake.leaves)
	}
}

// A member whose application stops calling Poll for longer than the
// rebalance timeout leaves the group (so the others get its partitions); its
// next Poll reports the partitions lost and joins as a new member.
func TestConsumerLeavesWhenPollStops(t *testing.T) {
	fake := &consumerFakeGroups{}
	addr := consumerStartFake(t, fake)
	var lost []TopicPartition
	c, err := NewConsumer(WithBroker(addr), WithGroup("g"), WithTopics("t"), WithAutoCommit(false),
		WithRebalanceTimeout(300*time.Millisecond), WithFetchMaxWait(50*time.Millisecond),
		WithOnLost(func(_ context.Context, tps []TopicPartition) { lost = tps }))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	defer func() { _ = c.Close(ctx) }()
	if _, err := c.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	left := func() int {
		fake.mu.Lock()
		defer fake.mu.Unlock()
		return fake.leaves
	}
	for left() == 0 {
		if ctx.Err() != nil {
			t.Fatal("the member did not leave after the rebalance timeout without Poll")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if md := c.GroupMetadata(); md.Generation != -1 {
		t.Errorf("a member that left holds generation %d", md.Generation)
	}
	if err := c.CommitSync(ctx); !errors.Is(err, ErrCommitFailed) {
		t.Errorf("a commit after leaving gave %v", err)
	}
	if _, err := c.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if md := c.GroupMetadata(); md.MemberID != "m-2" || !slices.Equal(lost, []TopicPartition{{"t", 0}}) {
		t.Errorf("after the next Poll: %+v, lost %v", md, lost)
	}
}

// When a rebalance is asked and the auto commit before the revoke finds the
// member fenced, its partitions are lost, not revoked: WithOnLost runs, not
// WithOnRevoked (which would tell the application it still owns them).
func TestConsumerFencedAtTheRevokeCommitReportsLost(t *testing.T) {
	fake := &consumerFakeGroups{}
	addr := consumerStartFake(t, fake)
	var mu sync.Mutex
	var events []string
	note := func(what string, tps []TopicPartition) {
		mu.Lock()
		defer mu.Unlock()
		events = append(events, fmt.Sprintf("%s%v", what, tps))
	}
	c, err := NewConsumer(WithBroker(addr), WithGroup("g"), WithTopics("t"), WithAutoCommit(true),
		WithFetchMaxWait(50*time.Millisecond),
		WithOnAssigned(func(_ context.Context, tps []TopicPartition) { note("assigned", tps) }),
		WithOnLost(func(_ context.Context, tps []TopicPartition) { note("lost", tps) }),
		WithOnRevoked(func(_ context.Context, tps []TopicPartition) { note("revoked", tps) }))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	defer func() { _ = c.Close(ctx) }()
	if _, err := c.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	fake.mu.Lock()
	fake.rejoin, fake.fence = true, true // the next heartbeat asks a rebalance; commits are refused
	fake.mu.Unlock()
	for {
		if _, err := c.Poll(ctx); err != nil {
			t.Fatalf("poll: %v", err)
		}
		fake.mu.Lock()
		joins := fake.joins
		if joins == 2 {
			fake.fence = false
		}
		fake.mu.Unlock()
		if joins == 2 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if got, want := strings.Join(events, " "), "assigned[{t 0}] lost[{t 0}] assigned[{t 0}]"; got != want {
		t.Fatalf("events\n got %s\nwant %s", got, want)
	}
}

// A retried call whose context ends during an attempt waiting for a reconnect
// still names the broker failure of the attempt before it (the attempt the
// context cut says only that the deadline passed): CI saw a bare
// "context deadline exceeded" from Committed against a dead address.
func TestConsumerRetryingKeepsTheLastBrokerFailureWhenTheContextCutsAnAttempt(t *testing.T) {
	c, err := NewConsumer(WithBroker("127.0.0.1:1"), WithGroup("g"), WithRetryBackoff(time.Millisecond, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close(context.Background()) }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	attempts := 0
	err = c.retrying(ctx, func(callCtx context.Context) error {
		attempts++
		if attempts == 1 {
			return callError(status.Error(codes.Unavailable, "connection refused"))
		}
		cancel() // the second attempt is cut by the context's end, as a reconnect wait is
		<-callCtx.Done()
		return callError(status.FromContextError(callCtx.Err()).Err())
	})
	if !errors.Is(err, ErrBrokerUnavailable) || !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v after %d attempts; want an error matching ErrBrokerUnavailable and context.Canceled", err, attempts)
	}
}
