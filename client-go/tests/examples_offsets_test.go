package tests

import "testing"

// The offsets example against a real broker: it lists the partitions, reads
// only the unpaused first one, and reads back the metadata it committed,
// which the admin sees too.
func TestExampleOffsets(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 2, nil)
	consumerProduce(t, b, topic, 0, 2, "inv-")
	consumerProduce(t, b, topic, 1, 1, "inv-")
	group := consumerGroupName(t)
	out := runExample(t, buildExamples(t), "offsets", "-broker", b.Addr(), "-topic", topic, "-group", group)
	want := "partition=0 end=2\npartition=1 end=1\n" +
		"read partition=0 offset=0 value=inv-0\nread partition=0 offset=1 value=inv-1\n" +
		"committed partition=0 offset=2 metadata=batch-17\n"
	if out != want {
		t.Fatalf("offsets printed:\n%s\nwant:\n%s", out, want)
	}
	committed, err := ackAdmin(t, b).CommittedOffsets(ackCtx(t), group)
	if err != nil || len(committed) != 1 || committed[0].Offset != 2 || committed[0].Metadata != "batch-17" {
		t.Fatalf("the admin reads %+v, %v", committed, err)
	}
}
