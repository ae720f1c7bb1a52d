package brook

import (
	"context"
	"errors"
	"testing"
	"time"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

func TestAdminConfigNamesEveryProblemAtOnce(t *testing.T) {
	_, err := NewAdmin(WithRequestTimeout(-time.Second), WithKeepalive(time.Second))
	var ce *ConfigError
	if !errors.Is(err, ErrInvalidConfig) || !errors.As(err, &ce) || ce.Client != "admin" || len(ce.Problems) != 3 {
		t.Fatalf("got %v", err)
	}
}

func TestAdminGroupDescriptionBecomesValueTypes(t *testing.T) {
	committed, lag := int64(7), int64(3)
	g := groupInfoOf(&brookv1.GroupDescription{
		Name: "g", Mode: brookv1.GroupMode_GROUP_MODE_ACK, State: brookv1.GroupState_GROUP_STATE_STABLE,
		Config: map[string]string{"ack.timeout.ms": "500"},
		Members: []*brookv1.MemberDescription{{MemberId: "m", ClientId: "c", LeasedRecords: 4, Connected: true,
			LastHeartbeatMs: 1000, Assignment: []*brookv1.TopicPartitions{{Topic: "t"}, {Topic: "u", Partitions: []int32{1, 2}}}}},
		Partitions: []*brookv1.GroupPartition{
			{Topic: "t", Partition: 0, CommittedOffset: &committed, EndOffset: 10, Lag: &lag, UnsettledRecords: 2,
				DeadLetteredRecords: 1, Redeliveries: 5},
			{Topic: "t", Partition: 1},
		},
	})
	if g.Mode != GroupModeAck || g.State != GroupStateStable || g.Config["ack.timeout.ms"] != "500" {
		t.Fatalf("group %+v", g)
	}
	m := g.Members[0]
	if m.MemberID != "m" || !m.Connected || m.LeasedRecords != 4 || !m.LastHeartbeat.Equal(time.UnixMilli(1000)) ||
		len(m.Assignment["t"]) != 0 || m.Assignment["t"] == nil || len(m.Assignment["u"]) != 2 {
		t.Fatalf("member %+v", m)
	}
	p0, p1 := g.Partitions[0], g.Partitions[1]
	if p0.CommittedOffset != 7 || p0.Lag != 3 || p0.UnsettledRecords != 2 || p0.DeadLetteredRecords != 1 || p0.Redeliveries != 5 {
		t.Fatalf("partition 0 %+v", p0)
	}
	if p1.CommittedOffset != -1 || p1.Lag != -1 {
		t.Fatalf("nothing committed must read -1: %+v", p1)
	}
	if GroupModeAck.String() != "ACK" || GroupStateEmpty.String() != "EMPTY" || GroupModeUnknown.proto() != brookv1.GroupMode_GROUP_MODE_UNSPECIFIED {
		t.Fatal("mode/state names")
	}

	offsets := groupOffsetsOf([]*brookv1.CommittedOffset{{Topic: "t", Partition: 3,
		ErrorCode: brookv1.ErrorCode_ERROR_CODE_OFFSET_OUT_OF_RANGE, ErrorMessage: "beyond the end"}})
	if o := offsets[0]; o.Offset != -1 || !o.CommitTime.IsZero() || !errors.Is(o.Err, ErrOffsetOutOfRange) {
		t.Fatalf("offset %+v", o)
	}
}

func TestAdminPartitionSelections(t *testing.T) {
	sel := groupSelection(map[string][]int32{"b": {2}, "a": nil})
	if len(sel) != 2 || sel[0].GetTopic() != "a" || len(sel[0].GetPartitions()) != 0 || sel[1].GetPartitions()[0] != 2 {
		t.Fatalf("selection %v", sel)
	}
	by := groupSelectionOf([]TopicPartition{{"x", 1}, {"y", 0}, {"x", 3}})
	if len(by) != 2 || by[0].GetTopic() != "x" || len(by[0].GetPartitions()) != 2 || by[1].GetTopic() != "y" {
		t.Fatalf("by topic %v", by)
	}
	if groupSelectionOf(nil) != nil {
		t.Fatal("none named: every partition")
	}
}

func TestAdminChecksArgumentsAndRefusesCallsAfterClose(t *testing.T) {
	a, err := NewAdmin(WithBroker("127.0.0.1:1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.ResetGroupOffsets(context.Background(), "g", nil, Position{}, true); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("reset without a position: %v", err)
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ListTopics(context.Background()); !errors.Is(err, ErrClientClosed) {
		t.Errorf("after close: %v", err)
	}
	if err := a.Close(context.Background()); err != nil {
		t.Errorf("second close: %v", err)
	}
}
