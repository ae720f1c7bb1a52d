package tests

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/brook-io/brook/client-go/brook"
	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

func TestAdminTopicsRoundTrip(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	ctx := ackCtx(t)
	name := ackGroupName(t) + "-topic"
	start := time.Now().Add(-time.Second)

	created, err := a.CreateTopic(ctx, name, 3, map[string]string{"retention.ms": "86400000"})
	if err != nil {
		t.Fatal(err)
	}
	if created.Name != name || len(created.Partitions) != 3 || created.ID == "" || created.Config["retention.ms"] != "86400000" ||
		created.CreatedAt.Before(start) || created.Config["max.message.bytes"] == "" {
		t.Fatalf("created %+v", created)
	}
	_, err = a.CreateTopic(ctx, name, 1, nil)
	var be *brook.BrokerError
	if !errors.Is(err, brook.ErrTopicExists) || !errors.As(err, &be) || be.Reason != "TOPIC_ALREADY_EXISTS" {
		t.Errorf("create twice: %v", err)
	}
	if _, err := a.CreateTopic(ctx, "bad name!", 1, nil); !errors.Is(err, brook.ErrInvalidRequest) {
		t.Errorf("a bad name: %v", err)
	}
	if _, err := a.CreateTopic(ctx, name+"-x", 1, map[string]string{"no.such.key": "1"}); !errors.Is(err, brook.ErrInvalidRequest) {
		t.Errorf("a bad config key: %v", err)
	}

	described, err := a.DescribeTopic(ctx, name)
	if err != nil || described.ID != created.ID || len(described.Partitions) != 3 {
		t.Fatalf("describe: %+v, %v", described, err)
	}
	list, err := a.ListTopics(ctx)
	if err != nil || !slices.ContainsFunc(list, func(ti brook.TopicInfo) bool { return ti.Name == name && ti.ID == created.ID }) {
		t.Fatalf("list has no %s: %v", name, err)
	}

	altered, err := a.AlterTopicConfig(ctx, name, map[string]string{"retention.ms": "3600000"}, nil)
	if err != nil || altered.Config["retention.ms"] != "3600000" {
		t.Fatalf("alter: %+v, %v", altered.Config, err)
	}
	reverted, err := a.AlterTopicConfig(ctx, name, nil, []string{"retention.ms"})
	if err != nil || reverted.Config["retention.ms"] == "3600000" || reverted.Config["retention.ms"] == "" {
		t.Fatalf("remove: %+v, %v", reverted.Config, err)
	}
	if _, err := a.AlterTopicConfig(ctx, name+"-missing", map[string]string{"retention.ms": "1"}, nil); !errors.Is(err, brook.ErrUnknownTopic) {
		t.Errorf("alter an unknown topic: %v", err)
	}

	grown, err := a.CreatePartitions(ctx, name, 4)
	if err != nil || len(grown.Partitions) != 4 {
		t.Fatalf("grow: %+v, %v", grown, err)
	}
	if _, err := a.CreatePartitions(ctx, name, 2); !errors.Is(err, brook.ErrInvalidRequest) {
		t.Errorf("shrink: %v", err)
	}

	ackProduceValues(t, b, name, 3, 3, "v")
	described, err = a.DescribeTopic(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	p3 := described.Partitions[3]
	if p3.Partition != 3 || p3.EndOffset != 3 || p3.Records() != 3 || p3.SizeBytes <= 0 || p3.SegmentCount < 1 || p3.SegmentRoll == "" {
		t.Errorf("partition 3 after 3 records: %+v", p3)
	}

	if err := a.DeleteTopic(ctx, name); err != nil {
		t.Fatal(err)
	}
	if _, err := a.DescribeTopic(ctx, name); !errors.Is(err, brook.ErrUnknownTopic) {
		t.Errorf("describe a deleted topic: %v", err)
	}
	if err := a.DeleteTopic(ctx, name); !errors.Is(err, brook.ErrUnknownTopic) {
		t.Errorf("delete twice: %v", err)
	}
}

func TestAdminGroupsRoundTrip(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	ctx := ackCtx(t)
	name := ackGroupName(t)

	created, err := a.CreateGroup(ctx, name, brook.GroupModeAck, map[string]string{"max.delivery.attempts": "3"})
	if err != nil {
		t.Fatal(err)
	}
	if created.Name != name || created.Mode != brook.GroupModeAck || created.State != brook.GroupStateEmpty ||
		created.Config["max.delivery.attempts"] != "3" || created.Config["ack.timeout.ms"] != "30000" {
		t.Fatalf("created %+v", created)
	}
	if _, err := a.CreateGroup(ctx, name, brook.GroupModeAck, nil); !errors.Is(err, brook.ErrGroupExists) {
		t.Errorf("create twice: %v", err)
	}
	if _, err := a.CreateGroup(ctx, "bad name!", brook.GroupModeAck, nil); !errors.Is(err, brook.ErrInvalidRequest) {
		t.Errorf("a bad name: %v", err)
	}
	if _, err := a.CreateGroup(ctx, name+"-x", brook.GroupModeAck, map[string]string{"ack.timeout.ms": "5"}); !errors.Is(err, brook.ErrInvalidRequest) {
		t.Errorf("a bad config value: %v", err)
	}

	groups, err := a.ListGroups(ctx)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(groups, func(g brook.GroupListing) bool { return g.Name == name })
	if i < 0 || groups[i].Mode != brook.GroupModeAck || groups[i].State != brook.GroupStateEmpty || groups[i].MemberCount != 0 {
		t.Fatalf("listed: %+v", groups)
	}

	altered, err := a.AlterGroupConfig(ctx, name, map[string]string{"ack.timeout.ms": "1000"}, []string{"max.delivery.attempts"})
	if err != nil || altered.Config["ack.timeout.ms"] != "1000" || altered.Config["max.delivery.attempts"] != "5" {
		t.Fatalf("alter: %+v, %v", altered.Config, err)
	}
	described, err := a.DescribeGroup(ctx, name)
	if err != nil || described.Config["ack.timeout.ms"] != "1000" || len(described.Members) != 0 {
		t.Fatalf("describe: %+v, %v", described, err)
	}
	if _, err := a.AlterGroupConfig(ctx, name+"-missing", map[string]string{"ack.timeout.ms": "1000"}, nil); !errors.Is(err, brook.ErrUnknownGroup) {
		t.Errorf("alter an unknown group: %v", err)
	}

	if err := a.DeleteGroup(ctx, name); err != nil {
		t.Fatal(err)
	}
	if _, err := a.DescribeGroup(ctx, name); !errors.Is(err, brook.ErrUnknownGroup) {
		t.Errorf("describe a deleted group: %v", err)
	}
	if err := a.DeleteGroup(ctx, name); !errors.Is(err, brook.ErrUnknownGroup) {
		t.Errorf("delete twice: %v", err)
	}
}

func TestAdminCommittedOffsetsAndResetWithADryRun(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	ctx := ackCtx(t)
	topic := b.createTopic(t, 2, nil)
	ackProduceValues(t, b, topic, 0, 5, "a")
	ackProduceValues(t, b, topic, 1, 5, "b")
	group := ackGroupName(t)
	// A commit from outside the group creates it in offset mode (as in Kafka).
	b.withRawConn(t, func(cc *grpc.ClientConn) {
		_, err := brookv1.NewGroupServiceClient(cc).CommitOffsets(ctx, &brookv1.CommitOffsetsRequest{Group: group,
			Offsets: []*brookv1.OffsetCommit{{Topic: topic, Partition: 0, Offset: 2, Metadata: "m"}, {Topic: topic, Partition: 1, Offset: 4}}})
		if err != nil {
			t.Fatalf("commit: %v", err)
		}
	})

	offsetsOf := func(list []brook.GroupOffset) map[int32]int64 {
		out := map[int32]int64{}
		for _, o := range list {
			if o.Topic != topic || o.Err != nil {
				t.Errorf("offset %+v", o)
			}
			out[o.Partition] = o.Offset
		}
		return out
	}
	committed, err := a.CommittedOffsets(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	if got := offsetsOf(committed); len(got) != 2 || got[0] != 2 || got[1] != 4 {
		t.Fatalf("committed %+v", committed)
	}
	for _, o := range committed {
		if o.Partition == 0 && (o.Metadata != "m" || o.CommitTime.IsZero()) {
			t.Errorf("partition 0's metadata and time: %+v", o)
		}
	}
	one, err := a.CommittedOffsets(ctx, group, brook.TopicPartition{Topic: topic, Partition: 1})
	if err != nil || len(one) != 1 || one[0].Partition != 1 || one[0].Offset != 4 {
		t.Fatalf("partition 1 only: %+v, %v", one, err)
	}

	dry, err := a.ResetGroupOffsets(ctx, group, map[string][]int32{topic: nil}, brook.Earliest, true)
	if err != nil {
		t.Fatal(err)
	}
	if got := offsetsOf(dry); len(got) != 2 || got[0] != 0 || got[1] != 0 {
		t.Fatalf("dry run answered %+v", dry)
	}
	after, err := a.CommittedOffsets(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	if got := offsetsOf(after); got[0] != 2 || got[1] != 4 {
		t.Fatalf("a dry run changed the offsets: %+v", after)
	}

	reset, err := a.ResetGroupOffsets(ctx, group, nil, brook.Latest, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := offsetsOf(reset); len(got) != 2 || got[0] != 5 || got[1] != 5 {
		t.Fatalf("reset to latest answered %+v", reset)
	}
	after, err = a.CommittedOffsets(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	if got := offsetsOf(after); got[0] != 5 || got[1] != 5 {
		t.Fatalf("after the reset: %+v", after)
	}
	atOne, err := a.ResetGroupOffsets(ctx, group, map[string][]int32{topic: {1}}, brook.AtOffset(1), false)
	if err != nil || len(atOne) != 1 || atOne[0].Partition != 1 || atOne[0].Offset != 1 {
		t.Fatalf("reset partition 1 to offset 1: %+v, %v", atOne, err)
	}

	if _, err := a.ResetGroupOffsets(ctx, group+"-missing", nil, brook.Earliest, true); !errors.Is(err, brook.ErrUnknownGroup) {
		t.Errorf("reset an unknown group: %v", err)
	}
	if missing, err := a.CommittedOffsets(ctx, group+"-missing"); err != nil || len(missing) != 0 {
		t.Errorf("an unknown group's offsets: %+v, %v", missing, err)
	}
}

// A group with a member can be neither reset nor deleted; once the member left, it can.
func TestAdminGroupNotEmpty(t *testing.T) {
	t.Parallel()
	b := sharedBroker
	a := ackAdmin(t, b)
	ctx := ackCtx(t)
	topic := b.createTopic(t, 1, nil)
	group := ackGroup(t, a)
	ackProduceValues(t, b, topic, 0, 3, "v")
	c := ackConsumer(t, b, group, []string{topic})
	got := ackTake(t, c, 3)

	g, err := a.DescribeGroup(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	if g.State != brook.GroupStateStable || len(g.Members) != 1 || g.Members[0].MemberID != c.MemberID() ||
		g.Members[0].LeasedRecords != 3 || len(g.Members[0].Assignment[topic]) != 0 || g.Members[0].Assignment[topic] == nil {
		t.Errorf("group with a member: %+v", g)
	}
	if p := g.Partitions[0]; p.UnsettledRecords != 3 || p.CommittedOffset != 0 || p.Lag != 3 || p.EndOffset != 3 {
		t.Errorf("partition with 3 records leased: %+v", p)
	}
	if err := a.DeleteGroup(ctx, group); !errors.Is(err, brook.ErrGroupNotEmpty) {
		t.Errorf("delete with a member: %v", err)
	}
	if _, err := a.ResetGroupOffsets(ctx, group, nil, brook.Earliest, true); !errors.Is(err, brook.ErrGroupNotEmpty) {
		t.Errorf("reset with a member: %v", err)
	}

	for _, r := range got {
		if err := c.Ack(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := a.DeleteGroup(ctx, group)
		if err == nil {
			break
		}
		if !errors.Is(err, brook.ErrGroupNotEmpty) || time.Now().After(deadline) {
			t.Fatalf("delete after the member left: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// An admin on a shared connection leaves it open when it closes.
func TestAdminOnASharedConnection(t *testing.T) {
	t.Parallel()
	cc, err := grpc.NewClient(sharedBroker.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cc.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	first, err := brook.NewAdmin(brook.WithConn(cc), brook.WithRequestTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.ListGroups(ctx); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := first.ListGroups(ctx); !errors.Is(err, brook.ErrClientClosed) {
		t.Errorf("after close: %v", err)
	}
	second, err := brook.NewAdmin(brook.WithConn(cc))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = second.Close(context.Background()) }()
	if _, err := second.ListTopics(ctx); err != nil {
		t.Errorf("the shared connection after the first admin closed: %v", err)
	}
}

func TestAdminConfigErrorsAreNamedTogether(t *testing.T) {
	t.Parallel()
	_, err := brook.NewAdmin(brook.WithBroker("host:0"), brook.WithClientID(""), brook.WithRequestTimeout(-1))
	var ce *brook.ConfigError
	if !errors.Is(err, brook.ErrInvalidConfig) || !errors.As(err, &ce) || len(ce.Problems) != 3 {
		t.Fatalf("got %v", err)
	}
}
