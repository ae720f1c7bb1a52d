package tests

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// patternSeen is what the members of a pattern subscription read and were
// assigned, over the whole test.
type patternSeen struct {
	read         map[string]bool // topic/partition/offset: a record read again counts once
	everAssigned map[string]bool // topics
}

// pollAll polls each consumer in turn (a rebalance waits for every member)
// until cond holds, noting what they read and hold; fails after 60 s.
func (s *patternSeen) pollAll(t *testing.T, what string, cond func() bool, cs ...*brook.Consumer) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within 60 s: %s", what)
		}
		for _, c := range cs {
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			records, err := c.Poll(ctx)
			cancel()
			if err != nil && !consumerIsTimeout(err) {
				t.Fatalf("poll (%s): %v", what, err)
			}
			for _, r := range records {
				s.read[fmt.Sprintf("%s/%d/%d", r.Topic, r.Partition, r.Offset)] = true
			}
			for _, tp := range c.Assignment() {
				s.everAssigned[tp.Topic] = true
			}
		}
	}
}

func (s *patternSeen) readFrom(topic string) int {
	n := 0
	for k := range s.read {
		if strings.HasPrefix(k, topic+"/") {
			n++
		}
	}
	return n
}

// patternAssigned is the members' assignments together, as "topic/partition", sorted.
func patternAssigned(cs ...*brook.Consumer) []string {
	var out []string
	for _, c := range cs {
		for _, tp := range c.Assignment() {
			out = append(out, fmt.Sprintf("%s/%d", tp.Topic, tp.Partition))
		}
	}
	slices.Sort(out)
	return out
}

func patternPartitions(topics ...string) []string {
	var out []string
	for _, t := range topics {
		out = append(out, t+"/0", t+"/1")
	}
	slices.Sort(out)
	return out
}

// WithTopicPattern (issue 23, D63): two members split the partitions of the
// topics the pattern matches and never get another topic's; a matching topic
// created while they poll is assigned and read without restarting them, and a
// deleted one is rebalanced away.
func TestConsumerTopicPatternFollowsMatchingTopics(t *testing.T) {
	b := sharedBroker
	a := ackAdmin(t, b)
	prefix := uniqueName(t, "p")
	a1, a2, a3, other := prefix+"-a1", prefix+"-a2", prefix+"-a3", prefix+"-b"
	for _, topic := range []string{a1, a2, other} {
		if _, err := a.CreateTopic(ackCtx(t), topic, 2, nil); err != nil {
			t.Fatal(err)
		}
		consumerProduce(t, b, topic, 0, 3, "r")
		consumerProduce(t, b, topic, 1, 3, "r")
	}
	group := consumerGroupName(t)
	member := func() *brook.Consumer {
		return consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(group),
			brook.WithTopicPattern(prefix+"-a.*"), brook.WithResetPosition(brook.Earliest),
			brook.WithSessionTimeout(6*time.Second))
	}
	one, two := member(), member()
	seen := &patternSeen{read: map[string]bool{}, everAssigned: map[string]bool{}}

	seen.pollAll(t, "a1 and a2 split between both members, all their records read", func() bool {
		return len(one.Assignment()) == 2 && len(two.Assignment()) == 2 &&
			slices.Equal(patternAssigned(one, two), patternPartitions(a1, a2)) &&
			seen.readFrom(a1)+seen.readFrom(a2) == 12
	}, one, two)
	if got := one.Subscription(); !slices.Equal(got, []string{a1, a2}) {
		t.Fatalf("Subscription = %v, want [%s %s]", got, a1, a2)
	}

	if _, err := a.CreateTopic(ackCtx(t), a3, 2, nil); err != nil {
		t.Fatal(err)
	}
	consumerProduce(t, b, a3, 0, 2, "n")
	consumerProduce(t, b, a3, 1, 2, "n")
	seen.pollAll(t, "a3 assigned to the polling members and read", func() bool {
		return slices.Equal(patternAssigned(one, two), patternPartitions(a1, a2, a3)) && seen.readFrom(a3) == 4
	}, one, two)
	if got := two.Subscription(); !slices.Equal(got, []string{a1, a2, a3}) {
		t.Fatalf("Subscription = %v after a3 was created, want [%s %s %s]", got, a1, a2, a3)
	}

	if err := a.DeleteTopic(ackCtx(t), a2); err != nil {
		t.Fatal(err)
	}
	seen.pollAll(t, "a2 rebalanced away", func() bool {
		return slices.Equal(patternAssigned(one, two), patternPartitions(a1, a3)) &&
			slices.Equal(one.Subscription(), []string{a1, a3})
	}, one, two)
	if seen.everAssigned[other] || seen.readFrom(other) > 0 {
		t.Fatalf("topic %s, which the pattern does not match, was assigned or read", other)
	}
}

// A pattern the broker cannot compile fails Poll with ErrInvalidRequest saying
// why; a pattern with topics, or without a group, is a configuration error.
func TestConsumerTopicPatternInvalid(t *testing.T) {
	b := sharedBroker
	c := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(consumerGroupName(t)), brook.WithTopicPattern("a("))
	_, err := c.Poll(consumerCtx(t, 30*time.Second))
	if !errors.Is(err, brook.ErrInvalidRequest) ||
		!strings.Contains(err.Error(), "topic_pattern 'a(' is not a valid (Java) regular expression: Unclosed group near index 2") {
		t.Fatalf("Poll with pattern a(: want ErrInvalidRequest saying why, got %v", err)
	}

	_, err = brook.NewConsumer(brook.WithBroker(b.Addr()), brook.WithGroup("g"), brook.WithTopics("t"),
		brook.WithTopicPattern("t.*"))
	if !errors.Is(err, brook.ErrInvalidConfig) || !strings.Contains(err.Error(), "set one, not both") {
		t.Fatalf("WithTopics and WithTopicPattern: want ErrInvalidConfig, got %v", err)
	}
	_, err = brook.NewConsumer(brook.WithBroker(b.Addr()), brook.WithTopicPattern("t.*"))
	if !errors.Is(err, brook.ErrInvalidConfig) || !strings.Contains(err.Error(), "WithTopicPattern needs WithGroup") {
		t.Fatalf("WithTopicPattern without a group: want ErrInvalidConfig, got %v", err)
	}
}

// With auth on, a pattern matches only the topics the caller may consume: not
// one it may only produce to, nor one it has no permission on.
func TestConsumerTopicPatternMatchesOnlyConsumableTopics(t *testing.T) {
	dir := t.TempDir()
	tokens := writeLines(t, filepath.Join(dir, "tokens"), "root=root-s3cret", "carol=carol-s3cret")
	permissions := writeLines(t, filepath.Join(dir, "permissions"),
		"root * topic:*", "root * group:*",
		"carol consume group:pat-*", "carol consume topic:sec-a1", "carol produce topic:sec-a2")
	b := startBroker(t, "--set", "auth.enabled=true", "--set", "auth.tokens.file="+tokens,
		"--set", "auth.permissions.file="+permissions)
	root, err := brook.NewAdmin(brook.WithBroker(b.Addr()), brook.WithToken("root-s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = root.Close(context.Background()) }()
	for _, topic := range []string{"sec-a1", "sec-a2", "sec-b"} {
		if _, err := root.CreateTopic(ackCtx(t), topic, 2, nil); err != nil {
			t.Fatal(err)
		}
	}
	carol := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithToken("carol-s3cret"), brook.WithGroup("pat-carol"),
		brook.WithTopicPattern("sec-.*"))
	seen := &patternSeen{read: map[string]bool{}, everAssigned: map[string]bool{}}
	seen.pollAll(t, "carol's member joined", func() bool { return len(carol.Subscription()) > 0 }, carol)
	if got := carol.Subscription(); !slices.Equal(got, []string{"sec-a1"}) {
		t.Fatalf("carol's Subscription = %v, want [sec-a1]", got)
	}
	if got := patternAssigned(carol); !slices.Equal(got, patternPartitions("sec-a1")) {
		t.Fatalf("carol's Assignment = %v, want sec-a1's partitions", got)
	}

	rooted := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithToken("root-s3cret"), brook.WithGroup("pat-root"),
		brook.WithTopicPattern("sec-.*"))
	seen.pollAll(t, "root's member joined", func() bool { return len(rooted.Subscription()) > 0 }, rooted)
	if got := rooted.Subscription(); !slices.Equal(got, []string{"sec-a1", "sec-a2", "sec-b"}) {
		t.Fatalf("root's Subscription = %v, want every sec- topic", got)
	}
}
