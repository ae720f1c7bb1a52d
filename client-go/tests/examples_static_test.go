package tests

import "testing"

// The static-membership example against a real broker: its second run, a
// restart with the same instance id, gets the same partitions in the same
// generation (no rebalance) and nothing to read again.
func TestExampleStatic(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 2, nil)
	consumerProduce(t, b, topic, 0, 2, "t-")
	consumerProduce(t, b, topic, 1, 1, "t-")
	out := runExample(t, buildExamples(t), "static", "-broker", b.Addr(), "-topic", topic, "-group", consumerGroupName(t))
	want := "run 1: partitions [0 1], generation 1, 3 records\nrun 2: partitions [0 1], generation 1, 0 records\n"
	if out != want {
		t.Fatalf("static printed:\n%s\nwant:\n%s", out, want)
	}
}
