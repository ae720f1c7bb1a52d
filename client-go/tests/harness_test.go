package tests

import (
	"testing"
)

// The harness itself: a topic made through the raw API is there, and a restart keeps it.
func TestHarnessRestartKeepsData(t *testing.T) {
	b := startBroker(t)
	topic := b.createTopic(t, 1, nil)
	b.Restart()
	if got := b.fetchAll(t, topic, 0); len(got) != 0 {
		t.Fatalf("a new topic has %d records", len(got))
	}
}
