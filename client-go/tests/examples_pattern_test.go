package tests

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The pattern example against a real broker: it reads the records of the
// topics its pattern matches, not the other one's, and prints what it matched.
func TestExamplePattern(t *testing.T) {
	b := sharedBroker
	a := ackAdmin(t, b)
	prefix := uniqueName(t, "x")
	for _, topic := range []string{"orders-eu", "orders-us", "refunds"} {
		if _, err := a.CreateTopic(context.Background(), prefix+"-"+topic, 1, nil); err != nil {
			t.Fatal(err)
		}
		consumerProduce(t, b, prefix+"-"+topic, 0, 1, strings.TrimPrefix(topic, "orders-")+"-")
	}
	out := runExample(t, buildExamples(t), "pattern", "-broker", b.Addr(), "-pattern", prefix+"-orders-.*",
		"-group", consumerGroupName(t), "-records", "2")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("pattern printed:\n%s\nwant two records and the subscription", out)
	}
	read := slices.Sorted(slices.Values(lines[:2]))
	want := []string{
		fmt.Sprintf("read topic=%s-orders-eu partition=0 offset=0 value=eu-0", prefix),
		fmt.Sprintf("read topic=%s-orders-us partition=0 offset=0 value=us-0", prefix),
	}
	if !slices.Equal(read, want) || lines[2] != fmt.Sprintf("subscribed to [%s-orders-eu %s-orders-us]", prefix, prefix) {
		t.Fatalf("pattern printed:\n%s\nwant:\n%s\n%s\nsubscribed to [%s-orders-eu %s-orders-us]", out, want[0], want[1],
			prefix, prefix)
	}
}
