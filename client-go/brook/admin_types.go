package brook

import (
	"maps"
	"slices"
	"time"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// TopicInfo describes a topic.
type TopicInfo struct {
	Name string
	// ID is unique per creation: a topic deleted and created again has a new one.
	ID string
	// Config is the effective config: every topic key, defaults included.
	Config     map[string]string
	Partitions []PartitionInfo
	CreatedAt  time.Time
}

// PartitionInfo describes one partition of a topic.
type PartitionInfo struct {
	Partition      int32
	LogStartOffset int64
	EndOffset      int64
	// SizeBytes counts the bytes of records written and still held.
	SizeBytes int64
	// SegmentRoll is the roll cycle of the partition's segments, fixed at creation.
	SegmentRoll  string
	SegmentCount int32
	// ForceCount counts the forces to the device for SYNCED produces since the broker started.
	ForceCount int64
	// ProducerCount counts the idempotent producers the partition holds state for.
	ProducerCount int32
}

// Records is how many records the partition holds: EndOffset - LogStartOffset.
func (p PartitionInfo) Records() int64 { return p.EndOffset - p.LogStartOffset }

// GroupMode is how a group consumes.
type GroupMode int

const (
	// GroupModeUnknown: a mode this client does not know (or none given).
	GroupModeUnknown GroupMode = iota
	// GroupModeOffset: Kafka's consumer groups: partitions assigned to members,
	// offsets committed by members (the Consumer).
	GroupModeOffset
	// GroupModeAck: queue semantics: records leased to any member and acked
	// one by one (the AckConsumer).
	GroupModeAck
)

func (m GroupMode) String() string {
	switch m {
	case GroupModeOffset:
		return "OFFSET"
	case GroupModeAck:
		return "ACK"
	}
	return "UNKNOWN"
}

func (m GroupMode) proto() brookv1.GroupMode {
	switch m {
	case GroupModeOffset:
		return brookv1.GroupMode_GROUP_MODE_OFFSET
	case GroupModeAck:
		return brookv1.GroupMode_GROUP_MODE_ACK
	}
	return brookv1.GroupMode_GROUP_MODE_UNSPECIFIED
}

func groupModeOf(m brookv1.GroupMode) GroupMode {
	switch m {
	case brookv1.GroupMode_GROUP_MODE_OFFSET:
		return GroupModeOffset
	case brookv1.GroupMode_GROUP_MODE_ACK:
		return GroupModeAck
	}
	return GroupModeUnknown
}

// GroupState is where a group is in its life.
type GroupState int

const (
	GroupStateUnknown GroupState = iota
	// GroupStateEmpty: no members.
	GroupStateEmpty
	// GroupStateRebalancing: offset mode, waiting for members to rejoin.
	GroupStateRebalancing
	// GroupStateStable: members hold their assignment (offset mode) or receive (ack mode).
	GroupStateStable
)

func (s GroupState) String() string {
	switch s {
	case GroupStateEmpty:
		return "EMPTY"
	case GroupStateRebalancing:
		return "REBALANCING"
	case GroupStateStable:
		return "STABLE"
	}
	return "UNKNOWN"
}

func groupStateOf(s brookv1.GroupState) GroupState {
	switch s {
	case brookv1.GroupState_GROUP_STATE_EMPTY:
		return GroupStateEmpty
	case brookv1.GroupState_GROUP_STATE_REBALANCING:
		return GroupStateRebalancing
	case brookv1.GroupState_GROUP_STATE_STABLE:
		return GroupStateStable
	}
	return GroupStateUnknown
}

// GroupListing is one group in ListGroups.
type GroupListing struct {
	Name        string
	Mode        GroupMode
	State       GroupState
	MemberCount int32
	// Type says how its members consume: "brook" (gRPC offset mode), "classic" or
	// "consumer" (Kafka's protocols), "ack", or "none" (offsets only).
	Type string
}

// GroupInfo describes a group.
type GroupInfo struct {
	Name  string
	Mode  GroupMode
	State GroupState
	// Generation is offset mode's current generation (0 before the first rebalance).
	Generation int32
	// Config is the effective config, defaults included.
	Config     map[string]string
	Members    []MemberInfo
	Partitions []GroupPartitionInfo
	// Type is as GroupListing.Type.
	Type string
}

// MemberInfo describes a member of a group.
type MemberInfo struct {
	MemberID      string
	ClientID      string
	ClientAddress string
	// Assignment is, in offset mode, the member's partitions by topic; in ack
	// mode, the topics it receives from (with no partitions).
	Assignment    map[string][]int32
	LastHeartbeat time.Time
	// LeasedRecords (ack mode) counts the records leased to the member and not settled.
	LeasedRecords int64
	// Connected is false (ack mode) while a member with a stable id is between streams.
	Connected bool
	// InstanceID is a Kafka static member's group.instance.id ("" for none).
	InstanceID string
}

// GroupPartitionInfo is a group's view of one partition.
type GroupPartitionInfo struct {
	Topic     string
	Partition int32
	// CommittedOffset is -1 when nothing is committed. Ack mode: the lowest unsettled offset.
	CommittedOffset int64
	LogStartOffset  int64
	EndOffset       int64
	// Lag is EndOffset - CommittedOffset; -1 when nothing is committed.
	Lag int64
	// MemberID is offset mode's owner ("" when unassigned).
	MemberID string
	// Ack mode: records delivered or deliverable below the delivery point and not yet settled.
	UnsettledRecords int64
	// Ack mode, since the broker started: records sent to the dead-letter topic,
	// deliveries after the first, and records retention deleted before the group
	// settled them.
	DeadLetteredRecords     int64
	Redeliveries            int64
	RetentionDeletedRecords int64
}

// GroupOffset is a group's committed offset of one partition, as
// CommittedOffsets and ResetGroupOffsets answer it.
type GroupOffset struct {
	Topic     string
	Partition int32
	// Offset is the next offset to read; -1 when nothing is committed.
	Offset     int64
	Metadata   string
	CommitTime time.Time
	// Err is this partition's error (for example ErrOffsetOutOfRange or
	// ErrUnknownPartition in a reset), nil when there is none.
	Err error
}

// --- from the broker's messages

func topicInfoOf(t *brookv1.TopicDescription) TopicInfo {
	out := TopicInfo{
		Name:       t.GetName(),
		ID:         t.GetTopicId(),
		Config:     maps.Clone(t.GetConfig()),
		Partitions: make([]PartitionInfo, 0, len(t.GetPartitions())),
		CreatedAt:  time.UnixMilli(t.GetCreatedAtMs()),
	}
	if out.Config == nil {
		out.Config = map[string]string{}
	}
	for _, p := range t.GetPartitions() {
		out.Partitions = append(out.Partitions, PartitionInfo{
			Partition:      p.GetPartition(),
			LogStartOffset: p.GetLogStartOffset(),
			EndOffset:      p.GetEndOffset(),
			SizeBytes:      p.GetSizeBytes(),
			SegmentRoll:    p.GetSegmentRoll(),
			SegmentCount:   p.GetSegmentCount(),
			ForceCount:     p.GetForceCount(),
			ProducerCount:  p.GetProducerCount(),
		})
	}
	return out
}

func groupListingOf(g *brookv1.GroupSummary) GroupListing {
	return GroupListing{Name: g.GetName(), Mode: groupModeOf(g.GetMode()), State: groupStateOf(g.GetState()),
		MemberCount: g.GetMemberCount(), Type: g.GetType()}
}

func groupInfoOf(g *brookv1.GroupDescription) GroupInfo {
	out := GroupInfo{
		Name:       g.GetName(),
		Mode:       groupModeOf(g.GetMode()),
		State:      groupStateOf(g.GetState()),
		Generation: g.GetGeneration(),
		Type:       g.GetType(),
		Config:     maps.Clone(g.GetConfig()),
		Members:    make([]MemberInfo, 0, len(g.GetMembers())),
		Partitions: make([]GroupPartitionInfo, 0, len(g.GetPartitions())),
	}
	if out.Config == nil {
		out.Config = map[string]string{}
	}
	for _, m := range g.GetMembers() {
		assignment := make(map[string][]int32, len(m.GetAssignment()))
		for _, tp := range m.GetAssignment() {
			assignment[tp.GetTopic()] = append(assignment[tp.GetTopic()], tp.GetPartitions()...)
		}
		for t, ps := range assignment {
			if ps == nil {
				assignment[t] = []int32{}
			}
		}
		out.Members = append(out.Members, MemberInfo{
			MemberID:      m.GetMemberId(),
			ClientID:      m.GetClientId(),
			ClientAddress: m.GetClientAddress(),
			Assignment:    assignment,
			LastHeartbeat: adminTime(m.GetLastHeartbeatMs()),
			LeasedRecords: m.GetLeasedRecords(),
			Connected:     m.GetConnected(),
			InstanceID:    m.GetInstanceId(),
		})
	}
	for _, p := range g.GetPartitions() {
		committed, lag := int64(-1), int64(-1)
		if p.CommittedOffset != nil {
			committed = p.GetCommittedOffset()
		}
		if p.Lag != nil {
			lag = p.GetLag()
		}
		out.Partitions = append(out.Partitions, GroupPartitionInfo{
			Topic:                   p.GetTopic(),
			Partition:               p.GetPartition(),
			CommittedOffset:         committed,
			LogStartOffset:          p.GetLogStartOffset(),
			EndOffset:               p.GetEndOffset(),
			Lag:                     lag,
			MemberID:                p.GetMemberId(),
			UnsettledRecords:        p.GetUnsettledRecords(),
			DeadLetteredRecords:     p.GetDeadLetteredRecords(),
			Redeliveries:            p.GetRedeliveries(),
			RetentionDeletedRecords: p.GetRetentionDeletedRecords(),
		})
	}
	return out
}

func groupOffsetsOf(list []*brookv1.CommittedOffset) []GroupOffset {
	out := make([]GroupOffset, 0, len(list))
	for _, c := range list {
		offset := int64(-1)
		if c.Offset != nil {
			offset = c.GetOffset()
		}
		out = append(out, GroupOffset{
			Topic:      c.GetTopic(),
			Partition:  c.GetPartition(),
			Offset:     offset,
			Metadata:   c.GetMetadata(),
			CommitTime: adminTime(c.GetCommitTimeMs()),
			Err:        partitionError(c.GetErrorCode(), c.GetErrorMessage(), c.GetTopic(), c.GetPartition()),
		})
	}
	return out
}

// groupSelection is topic -> partitions (none: all of the topic's) as the
// wire's selection, topics in name order.
func groupSelection(partitions map[string][]int32) []*brookv1.TopicPartitions {
	out := make([]*brookv1.TopicPartitions, 0, len(partitions))
	for _, t := range slices.Sorted(maps.Keys(partitions)) {
		out = append(out, &brookv1.TopicPartitions{Topic: t, Partitions: slices.Clone(partitions[t])})
	}
	return out
}

// groupSelectionOf groups single partitions by topic, in the order topics first appear.
func groupSelectionOf(tps []TopicPartition) []*brookv1.TopicPartitions {
	var out []*brookv1.TopicPartitions
	index := map[string]int{}
	for _, tp := range tps {
		i, ok := index[tp.Topic]
		if !ok {
			i = len(out)
			index[tp.Topic] = i
			out = append(out, &brookv1.TopicPartitions{Topic: tp.Topic})
		}
		out[i].Partitions = append(out[i].Partitions, tp.Partition)
	}
	return out
}

func adminTime(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}
