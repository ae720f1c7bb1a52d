package tests

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// coopMember is a group member polling on its own goroutine, as an
// application does: it commits after each batch and, for the partitions
// revoked, in WithOnRevoked; its callbacks go into the shared event log.
type coopMember struct {
	name     string
	c        *brook.Consumer
	log      *coopLog
	paused   atomic.Bool
	idle     atomic.Bool
	cancel   context.CancelFunc
	done     chan struct{}
	mu       sync.Mutex
	values   []string
	owned    map[brook.TopicPartition]bool
	revoked  [][]brook.TopicPartition
	problems []string
}

type coopLog struct {
	mu     sync.Mutex
	events []string
}

func (l *coopLog) add(e string) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

func (l *coopLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

func coopStart(t *testing.T, b *brokerProcess, log *coopLog, name, group, topic string, p brook.RebalanceProtocol) *coopMember {
	m := &coopMember{name: name, log: log, done: make(chan struct{}), owned: map[brook.TopicPartition]bool{}}
	m.c = consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(group), brook.WithTopics(topic),
		brook.WithResetPosition(brook.Earliest), brook.WithSessionTimeout(10*time.Second),
		brook.WithRebalanceTimeout(2*time.Minute), brook.WithFetchMaxWait(200*time.Millisecond),
		brook.WithAutoCommit(false), brook.WithRebalanceProtocol(p),
		brook.WithOnAssigned(func(_ context.Context, tps []brook.TopicPartition) {
			log.add(fmt.Sprint(name, " assigned ", noticeSorted(tps)))
			m.mu.Lock()
			for _, tp := range tps {
				m.owned[tp] = true
			}
			m.mu.Unlock()
		}),
		brook.WithOnRevoked(func(ctx context.Context, tps []brook.TopicPartition) {
			log.add(fmt.Sprint(name, " revoked ", noticeSorted(tps)))
			positions := map[brook.TopicPartition]int64{}
			for _, tp := range tps {
				pos, err := m.c.Position(ctx, tp)
				if err != nil {
					m.problem("position of %v: %v", tp, err)
					continue
				}
				positions[tp] = pos
			}
			if err := m.c.CommitOffsets(ctx, positions); err != nil {
				m.problem("commit of revoked %v: %v", tps, err)
			}
			m.mu.Lock()
			m.revoked = append(m.revoked, noticeSorted(tps))
			for _, tp := range tps {
				delete(m.owned, tp)
			}
			m.mu.Unlock()
		}),
		brook.WithOnLost(func(_ context.Context, tps []brook.TopicPartition) {
			log.add(fmt.Sprint(name, " lost ", noticeSorted(tps)))
		}))
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			if m.paused.Load() {
				m.idle.Store(true)
				time.Sleep(10 * time.Millisecond)
				continue
			}
			m.idle.Store(false)
			pollCtx, pollDone := context.WithTimeout(ctx, 200*time.Millisecond) // Poll waits for a record
			records, err := m.c.Poll(pollCtx)
			pollDone()
			if err != nil && consumerIsTimeout(err) && ctx.Err() == nil {
				continue
			}
			if err != nil {
				if ctx.Err() == nil {
					m.problem("poll: %v", err)
				}
				return
			}
			m.mu.Lock()
			for _, r := range records {
				if !m.owned[brook.TopicPartition{Topic: r.Topic, Partition: r.Partition}] {
					m.problems = append(m.problems, fmt.Sprintf("record of %s/%d not assigned", r.Topic, r.Partition))
				}
				m.values = append(m.values, string(r.Value))
			}
			m.mu.Unlock()
			if len(records) > 0 {
				if err := m.c.CommitSync(ctx); err != nil && ctx.Err() == nil {
					m.problem("commit: %v", err)
				}
			}
		}
	}()
	t.Cleanup(m.stop)
	return m
}

func (m *coopMember) problem(format string, args ...any) {
	m.mu.Lock()
	m.problems = append(m.problems, fmt.Sprintf(format, args...))
	m.mu.Unlock()
}

// stop ends the poll loop and closes the consumer (it revokes, commits and leaves).
func (m *coopMember) stop() {
	m.paused.Store(false)
	m.cancel()
	<-m.done
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_ = m.c.Close(ctx)
}

func (m *coopMember) assignment() []brook.TopicPartition {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []brook.TopicPartition
	for tp := range m.owned {
		out = append(out, tp)
	}
	return noticeSorted(out)
}

func (m *coopMember) read() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.values)
}

func (m *coopMember) revokes() [][]brook.TopicPartition {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.revoked)
}

func coopProduce(t *testing.T, b *brokerProcess, topic string, partitions int32, tag string, n int) []string {
	var values []string
	for p := int32(0); p < partitions; p++ {
		prefix := fmt.Sprintf("%s-%d-", tag, p)
		consumerProduce(t, b, topic, p, n, prefix)
		for i := 0; i < n; i++ {
			values = append(values, fmt.Sprintf("%s%d", prefix, i))
		}
	}
	return values
}

// coopCheckOnce: every value read exactly once among the members, and no member saw a problem.
func coopCheckOnce(t *testing.T, want []string, members ...*coopMember) {
	t.Helper()
	seen := map[string]int{}
	for _, m := range members {
		m.mu.Lock()
		for _, v := range m.values {
			seen[v]++
		}
		if len(m.problems) > 0 {
			t.Errorf("%s: %v", m.name, m.problems)
		}
		m.mu.Unlock()
	}
	for v, n := range seen {
		if n != 1 {
			t.Errorf("%s read %d times", v, n)
		}
	}
	for _, v := range want {
		if seen[v] == 0 {
			t.Errorf("%s never read", v)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("read %d distinct values, want %d", len(seen), len(want))
	}
}

// coopCheckRevokedBeforeAssigned: each partition the newcomer c was given had
// been revoked by its old owner before c got it.
func coopCheckRevokedBeforeAssigned(t *testing.T, events []string, c *coopMember) {
	t.Helper()
	for _, tp := range c.assignment() {
		assignedAt := slices.IndexFunc(events, func(e string) bool {
			return strings.HasPrefix(e, c.name+" assigned ") && strings.Contains(e, fmt.Sprint(tp))
		})
		revokedAt := slices.IndexFunc(events, func(e string) bool {
			return strings.Contains(e, " revoked ") && strings.Contains(e, fmt.Sprint(tp))
		})
		if assignedAt < 0 || revokedAt < 0 || revokedAt > assignedAt {
			t.Errorf("%v was not revoked before %s got it: %v", tp, c.name, events)
		}
	}
}

func coopMinus(a, b []brook.TopicPartition) []brook.TopicPartition {
	var out []brook.TopicPartition
	for _, tp := range a {
		if !slices.Contains(b, tp) {
			out = append(out, tp)
		}
	}
	return noticeSorted(out)
}

// Two cooperative members keep the partitions that do not move while a third
// joins, and read them on while the rebalance is under way; only the moved
// partitions are revoked (committed) before the third gets them, so every
// record is read once.
func TestConsumerCooperativeMembersKeepWhatDoesNotMoveWhileAThirdJoins(t *testing.T) {
	b := startBroker(t)
	const parts = 6
	topic := b.createTopic(t, parts, nil)
	side := b.createTopic(t, 1, nil)
	group := consumerGroupName(t)
	admin := ackAdmin(t, b)
	log := &coopLog{}
	// d reads another topic of the group: while it does not poll, the group
	// waits for its rejoin (up to its rebalance timeout), which holds the rebalance open.
	d := coopStart(t, b, log, "d", group, side, brook.RebalanceEager)
	consumerAwait(t, 30*time.Second, "d has its partition", func() bool { return len(d.assignment()) == 1 })
	a := coopStart(t, b, log, "a", group, topic, brook.RebalanceCooperative)
	consumerAwait(t, 30*time.Second, "a owns every partition", func() bool { return len(a.assignment()) == parts })
	bm := coopStart(t, b, log, "b", group, topic, brook.RebalanceCooperative)
	consumerAwait(t, 60*time.Second, "a and b have 3 each", func() bool {
		return len(a.assignment()) == 3 && len(bm.assignment()) == 3
	})
	want := coopProduce(t, b, topic, parts, "first", 40)
	consumerAwait(t, 30*time.Second, "a and b read the first records", func() bool { return a.read()+bm.read() >= len(want) })
	aBefore, bBefore := a.assignment(), bm.assignment()
	aRevokes, bRevokes := len(a.revokes()), len(bm.revokes())

	d.paused.Store(true)
	consumerAwait(t, 10*time.Second, "d's poll loop is idle", func() bool { return d.idle.Load() })
	mark := len(log.all())
	c := coopStart(t, b, log, "c", group, topic, brook.RebalanceCooperative)
	rebalancing := func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		g, err := admin.DescribeGroup(ctx, group)
		return err == nil && g.State == brook.GroupStateRebalancing
	}
	consumerAwait(t, 30*time.Second, "the group rebalances for c", rebalancing)
	before := a.read() + bm.read()
	want = append(want, coopProduce(t, b, topic, parts, "during", 20)...)
	consumerAwait(t, 30*time.Second, "a and b read the records produced during the rebalance", func() bool {
		return a.read()+bm.read() >= before+parts*20
	})
	if !rebalancing() {
		t.Fatal("the rebalance completed although d has not rejoined")
	}
	if !slices.Equal(a.assignment(), aBefore) || !slices.Equal(bm.assignment(), bBefore) || len(c.assignment()) != 0 {
		t.Fatalf("partitions moved during the rebalance: a %v b %v c %v", a.assignment(), bm.assignment(), c.assignment())
	}

	d.paused.Store(false)
	consumerAwait(t, 60*time.Second, "a, b and c have 2 each", func() bool {
		return len(a.assignment()) == 2 && len(bm.assignment()) == 2 && len(c.assignment()) == 2
	})
	want = append(want, coopProduce(t, b, topic, parts, "after", 20)...)
	consumerAwait(t, 30*time.Second, "everything read", func() bool { return a.read()+bm.read()+c.read() >= len(want) })

	events := log.all()
	for _, x := range []struct {
		m       *coopMember
		before  []brook.TopicPartition
		revokes int
	}{{a, aBefore, aRevokes}, {bm, bBefore, bRevokes}} {
		now := x.m.assignment()
		if len(coopMinus(now, x.before)) != 0 {
			t.Errorf("%s got partitions it did not have: %v -> %v", x.m.name, x.before, now)
		}
		got := x.m.revokes()[x.revokes:]
		wantRevoked := coopMinus(x.before, now)
		if len(got) != 1 || !slices.Equal(got[0], wantRevoked) {
			t.Errorf("%s revoked %v, want only what moved to c, %v: %v", x.m.name, got, wantRevoked, events)
		}
	}
	coopCheckRevokedBeforeAssigned(t, events[mark:], c)
	for _, e := range events {
		if strings.Contains(e, " lost ") {
			t.Errorf("partitions lost: %v", events)
		}
	}
	c.stop()
	bm.stop()
	a.stop()
	coopCheckOnce(t, want, a, bm, c)
}

// A cooperative member that closes revokes (and commits) its partitions; the
// other keeps its own and hears only of the added ones.
func TestConsumerCooperativeMemberClosingHandsOverItsPartitions(t *testing.T) {
	b := startBroker(t)
	const parts = 6
	topic := b.createTopic(t, parts, nil)
	group := consumerGroupName(t)
	log := &coopLog{}
	a := coopStart(t, b, log, "a", group, topic, brook.RebalanceCooperative)
	bm := coopStart(t, b, log, "b", group, topic, brook.RebalanceCooperative)
	consumerAwait(t, 60*time.Second, "a and b have 3 each", func() bool {
		return len(a.assignment()) == 3 && len(bm.assignment()) == 3
	})
	want := coopProduce(t, b, topic, parts, "first", 30)
	consumerAwait(t, 30*time.Second, "a and b read the first records", func() bool { return a.read()+bm.read() >= len(want) })
	aBefore, bBefore := a.assignment(), bm.assignment()
	aRevokes := len(a.revokes())
	want = append(want, coopProduce(t, b, topic, parts, "second", 30)...)
	bm.stop()
	consumerAwait(t, 30*time.Second, "a owns every partition", func() bool { return len(a.assignment()) == parts })
	want = append(want, coopProduce(t, b, topic, parts, "third", 30)...)
	consumerAwait(t, 30*time.Second, "everything read", func() bool { return a.read()+bm.read() >= len(want) })
	events := log.all()
	if got := a.revokes()[aRevokes:]; len(got) != 0 {
		t.Errorf("a revoked %v: %v", got, events)
	}
	if !slices.Contains(events, fmt.Sprint("a assigned ", bBefore)) || !slices.Contains(events, fmt.Sprint("b revoked ", bBefore)) {
		t.Errorf("want b revoked %v and a assigned only them: %v", bBefore, events)
	}
	if len(coopMinus(aBefore, a.assignment())) != 0 {
		t.Errorf("a lost partitions: %v", events)
	}
	a.stop()
	coopCheckOnce(t, want, a, bm)
}

// An eager and a cooperative member share a group: the eager one gives up
// everything at each rebalance, the cooperative one only what moves.
func TestConsumerCooperativeAndEagerMembersShareAGroup(t *testing.T) {
	b := startBroker(t)
	const parts = 6
	topic := b.createTopic(t, parts, nil)
	group := consumerGroupName(t)
	log := &coopLog{}
	want := coopProduce(t, b, topic, parts, "first", 20)
	e := coopStart(t, b, log, "e", group, topic, brook.RebalanceEager)
	consumerAwait(t, 30*time.Second, "e owns every partition", func() bool { return len(e.assignment()) == parts })
	a := coopStart(t, b, log, "a", group, topic, brook.RebalanceCooperative)
	consumerAwait(t, 60*time.Second, "e and a have 3 each", func() bool {
		return len(e.assignment()) == 3 && len(a.assignment()) == 3
	})
	want = append(want, coopProduce(t, b, topic, parts, "second", 20)...)
	consumerAwait(t, 30*time.Second, "e and a read the records", func() bool { return e.read()+a.read() >= len(want) })
	aBefore := a.assignment()
	aRevokes, eRevokes := len(a.revokes()), len(e.revokes())
	c := coopStart(t, b, log, "c", group, topic, brook.RebalanceCooperative)
	consumerAwait(t, 60*time.Second, "e, a and c have 2 each", func() bool {
		return len(e.assignment()) == 2 && len(a.assignment()) == 2 && len(c.assignment()) == 2
	})
	want = append(want, coopProduce(t, b, topic, parts, "third", 20)...)
	consumerAwait(t, 30*time.Second, "everything read", func() bool { return e.read()+a.read()+c.read() >= len(want) })
	events := log.all()
	if len(coopMinus(a.assignment(), aBefore)) != 0 {
		t.Errorf("a got new partitions: %v", events)
	}
	for _, r := range a.revokes()[aRevokes:] {
		if len(coopMinus(r, a.assignment())) != len(r) {
			t.Errorf("a revoked a partition it kept: %v", events)
		}
	}
	if got := e.revokes()[eRevokes:]; len(got) == 0 || len(got[0]) != 3 {
		t.Errorf("the eager member did not give up everything: %v", events)
	}
	coopCheckRevokedBeforeAssigned(t, events, c)
	c.stop()
	a.stop()
	e.stop()
	coopCheckOnce(t, want, e, a, c)
}

// The cooperative example against a real broker: a keeps partition 0, and
// partition 1 is revoked from a before b gets it.
func TestExampleCooperative(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 2, nil)
	out := runExample(t, buildExamples(t), "cooperative", "-broker", b.Addr(), "-topic", topic,
		"-group", consumerGroupName(t))
	if want := "a assigned [0 1]\na revoked [1]\nb assigned [1]\n"; out != want {
		t.Fatalf("cooperative printed:\n%s\nwant:\n%s", out, want)
	}
}
