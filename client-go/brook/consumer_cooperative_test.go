package brook

import (
	"slices"
	"strings"
	"testing"
)

func TestConsumerConfigChecksRebalanceProtocol(t *testing.T) {
	_, err := NewConsumer(WithGroup("g"), WithTopics("t"), WithRebalanceProtocol(RebalanceProtocol(7)))
	if err == nil || !strings.Contains(err.Error(), "WithRebalanceProtocol(7)") {
		t.Fatalf("got %v, want WithRebalanceProtocol named", err)
	}
	for _, p := range []RebalanceProtocol{RebalanceEager, RebalanceCooperative} {
		c, err := NewConsumer(WithBroker("127.0.0.1:1"), WithGroup("g"), WithTopics("t"), WithRebalanceProtocol(p))
		if err != nil {
			t.Fatal(err)
		}
		_ = c.Close(t.Context())
	}
}

func TestConsumerOwnedPartitionsGoByTopic(t *testing.T) {
	got := consumerByTopic([]TopicPartition{{"b", 1}, {"a", 2}, {"b", 0}, {"a", 0}})
	if len(got) != 2 || got[0].GetTopic() != "a" || got[1].GetTopic() != "b" ||
		!slices.Equal(got[0].GetPartitions(), []int32{0, 2}) || !slices.Equal(got[1].GetPartitions(), []int32{0, 1}) {
		t.Fatalf("got %v", got)
	}
	if consumerByTopic(nil) != nil {
		t.Fatal("nothing owned is no entry")
	}
}
