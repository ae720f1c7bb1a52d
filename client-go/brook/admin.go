package brook

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"google.golang.org/grpc"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// Admin creates, inspects, changes and deletes topics and groups. Each call
// is one request, with the context's deadline and WithRequestTimeout's
// (30s by default), and fails with the broker's error (errors.Is(err,
// ErrTopicExists), ErrUnknownTopic, ErrUnknownGroup, ErrGroupNotEmpty,
// ErrInvalidRequest, ErrLimitExceeded, ...; ErrBrokerUnavailable while the
// broker is unreachable: the connection reconnects by itself, so a later call
// succeeds once it is back). Calls are not retried: a create whose answer was
// lost may still have happened. A call whose ctx ends fails with ctx's error
// (errors.Is(err, context.DeadlineExceeded)). Admin is goroutine-safe.
type Admin struct {
	conn     *grpc.ClientConn
	ownsConn bool
	topics   brookv1.AdminServiceClient
	groups   brookv1.GroupServiceClient
	timeout  time.Duration
	log      *slog.Logger
	calls    adminCalls
	life     context.Context // ended by Close when its ctx ends first: the calls under way end
	end      context.CancelFunc
}

// NewAdmin checks every option (one *ConfigError naming all the invalid
// ones, matching ErrInvalidConfig) and makes the client. WithBroker or
// WithConn is required. It does not wait for the broker.
func NewAdmin(opts ...AdminOption) (*Admin, error) {
	cfg := adminConfig{conn: defaultConnConfig(), requestTimeout: adminDefaultRequestTimeout}
	for _, o := range opts {
		if o != nil {
			o.applyAdmin(&cfg)
		}
	}
	var p problems
	cfg.validate(&p)
	if err := p.err("admin"); err != nil {
		return nil, err
	}
	conn, owned, err := cfg.conn.dial()
	if err != nil {
		return nil, fmt.Errorf("brook: admin: %w", err)
	}
	a := &Admin{
		conn:     conn,
		ownsConn: owned,
		topics:   brookv1.NewAdminServiceClient(conn),
		groups:   brookv1.NewGroupServiceClient(conn),
		timeout:  cfg.requestTimeout,
		log:      cfg.conn.logger,
	}
	a.life, a.end = context.WithCancel(context.Background())
	return a, nil
}

// --- topics

// CreateTopic creates a topic with partitions partitions (0: the broker's
// default) and config keys (retention.ms, retention.bytes, segment.roll,
// max.record.bytes, max.message.bytes, message.timestamp.type; nil for
// none). Fails with ErrTopicExists, ErrInvalidRequest (name, partition
// count, config) or ErrLimitExceeded.
func (a *Admin) CreateTopic(ctx context.Context, name string, partitions int32, config map[string]string) (TopicInfo, error) {
	return adminCall(ctx, a, func(ctx context.Context) (TopicInfo, error) {
		resp, err := a.topics.CreateTopic(ctx, &brookv1.CreateTopicRequest{Name: name, Partitions: partitions, Config: config})
		return topicInfoOf(resp.GetTopic()), err
	})
}

// ListTopics describes every topic.
func (a *Admin) ListTopics(ctx context.Context) ([]TopicInfo, error) {
	return adminCall(ctx, a, func(ctx context.Context) ([]TopicInfo, error) {
		resp, err := a.topics.ListTopics(ctx, &brookv1.ListTopicsRequest{})
		if err != nil {
			return nil, err
		}
		out := make([]TopicInfo, 0, len(resp.GetTopics()))
		for _, t := range resp.GetTopics() {
			out = append(out, topicInfoOf(t))
		}
		return out, nil
	})
}

// DescribeTopic describes a topic; fails with ErrUnknownTopic.
func (a *Admin) DescribeTopic(ctx context.Context, name string) (TopicInfo, error) {
	return adminCall(ctx, a, func(ctx context.Context) (TopicInfo, error) {
		resp, err := a.topics.DescribeTopic(ctx, &brookv1.DescribeTopicRequest{Name: name})
		return topicInfoOf(resp.GetTopic()), err
	})
}

// AlterTopicConfig sets the keys of set and removes those of remove (back to
// their defaults), and answers the topic as it is now. Fails with
// ErrUnknownTopic or ErrInvalidRequest.
func (a *Admin) AlterTopicConfig(ctx context.Context, name string, set map[string]string, remove []string) (TopicInfo, error) {
	return adminCall(ctx, a, func(ctx context.Context) (TopicInfo, error) {
		resp, err := a.topics.AlterTopicConfig(ctx, &brookv1.AlterTopicConfigRequest{Name: name, Set: set, Remove: remove})
		return topicInfoOf(resp.GetTopic()), err
	})
}

// CreatePartitions grows the topic to total partitions; it never shrinks
// (ErrInvalidRequest when total is not larger than the current count).
func (a *Admin) CreatePartitions(ctx context.Context, name string, total int32) (TopicInfo, error) {
	return adminCall(ctx, a, func(ctx context.Context) (TopicInfo, error) {
		resp, err := a.topics.CreatePartitions(ctx, &brookv1.CreatePartitionsRequest{Name: name, TotalPartitions: total})
		return topicInfoOf(resp.GetTopic()), err
	})
}

// DeleteTopic deletes the topic and its records (created again, it starts at
// offset 0); fails with ErrUnknownTopic.
func (a *Admin) DeleteTopic(ctx context.Context, name string) error {
	_, err := adminCall(ctx, a, func(ctx context.Context) (struct{}, error) {
		_, err := a.topics.DeleteTopic(ctx, &brookv1.DeleteTopicRequest{Name: name})
		return struct{}{}, err
	})
	return err
}

// --- groups

// CreateGroup creates a group in mode (GroupModeUnknown: offset) with config
// keys (ack.timeout.ms, max.delivery.attempts, dead.letter.topic,
// max.unsettled.per.partition, auto.offset.reset; nil for none). Fails with
// ErrGroupExists or ErrInvalidRequest (name, config).
func (a *Admin) CreateGroup(ctx context.Context, name string, mode GroupMode, config map[string]string) (GroupInfo, error) {
	return adminCall(ctx, a, func(ctx context.Context) (GroupInfo, error) {
		resp, err := a.groups.CreateGroup(ctx, &brookv1.CreateGroupRequest{Group: name, Mode: mode.proto(), Config: config})
		return groupInfoOf(resp.GetGroup()), err
	})
}

// ListGroups lists every group.
func (a *Admin) ListGroups(ctx context.Context) ([]GroupListing, error) {
	return adminCall(ctx, a, func(ctx context.Context) ([]GroupListing, error) {
		resp, err := a.groups.ListGroups(ctx, &brookv1.ListGroupsRequest{})
		if err != nil {
			return nil, err
		}
		out := make([]GroupListing, 0, len(resp.GetGroups()))
		for _, g := range resp.GetGroups() {
			out = append(out, groupListingOf(g))
		}
		return out, nil
	})
}

// DescribeGroup describes a group: its members and, per partition, its
// committed offset and lag, and in ack mode the unsettled, dead-lettered and
// redelivered records. Fails with ErrUnknownGroup.
func (a *Admin) DescribeGroup(ctx context.Context, name string) (GroupInfo, error) {
	return adminCall(ctx, a, func(ctx context.Context) (GroupInfo, error) {
		resp, err := a.groups.DescribeGroup(ctx, &brookv1.DescribeGroupRequest{Group: name})
		return groupInfoOf(resp.GetGroup()), err
	})
}

// AlterGroupConfig sets the keys of set and removes those of remove (back to
// their defaults), and answers the group as it is now. Fails with
// ErrUnknownGroup or ErrInvalidRequest.
func (a *Admin) AlterGroupConfig(ctx context.Context, name string, set map[string]string, remove []string) (GroupInfo, error) {
	return adminCall(ctx, a, func(ctx context.Context) (GroupInfo, error) {
		resp, err := a.groups.AlterGroupConfig(ctx, &brookv1.AlterGroupConfigRequest{Group: name, Set: set, Remove: remove})
		return groupInfoOf(resp.GetGroup()), err
	})
}

// CommittedOffsets answers the group's committed offsets of partitions, or
// of every partition it committed when none are named (an unknown group has
// none). In ack mode the committed offset is the lowest unsettled one.
func (a *Admin) CommittedOffsets(ctx context.Context, group string, partitions ...TopicPartition) ([]GroupOffset, error) {
	return adminCall(ctx, a, func(ctx context.Context) ([]GroupOffset, error) {
		resp, err := a.groups.FetchCommittedOffsets(ctx, &brookv1.FetchCommittedOffsetsRequest{
			Group: group, Partitions: groupSelectionOf(partitions)})
		if err != nil {
			return nil, err
		}
		return groupOffsetsOf(resp.GetOffsets()), nil
	})
}

// ResetGroupOffsets moves the group's committed offsets to pos (Earliest,
// Latest, AtOffset, AtTime), only while the group has no members
// (ErrGroupNotEmpty). partitions maps a topic to its partitions, none
// meaning all of the topic's; an empty map means every partition the group
// has. In ack mode a reset discards the unsettled state of the partitions it
// resets. With dryRun nothing changes, and the answer says what would be
// committed. Per-partition errors are in GroupOffset.Err.
func (a *Admin) ResetGroupOffsets(ctx context.Context, group string, partitions map[string][]int32, pos Position, dryRun bool) ([]GroupOffset, error) {
	if pos.IsZero() {
		return nil, fmt.Errorf("%w: reset group %s: no position (use Earliest, Latest, AtOffset or AtTime)", ErrInvalidRequest, group)
	}
	return adminCall(ctx, a, func(ctx context.Context) ([]GroupOffset, error) {
		resp, err := a.groups.ResetGroupOffsets(ctx, &brookv1.ResetGroupOffsetsRequest{
			Group: group, Partitions: groupSelection(partitions), Position: pos.proto(), DryRun: dryRun})
		if err != nil {
			return nil, err
		}
		return groupOffsetsOf(resp.GetOffsets()), nil
	})
}

// DeleteGroup deletes the group and its offsets, only while it has no members
// (ErrGroupNotEmpty); fails with ErrUnknownGroup.
func (a *Admin) DeleteGroup(ctx context.Context, name string) error {
	_, err := adminCall(ctx, a, func(ctx context.Context) (struct{}, error) {
		_, err := a.groups.DeleteGroup(ctx, &brookv1.DeleteGroupRequest{Group: name})
		return struct{}{}, err
	})
	return err
}

// adminCall runs one call with the request timeout; a failed call's result is
// the zero value. A call ctx ended fails with ctx's error, wrapping the
// broker's when it said more; one Close cut short, with ErrClientClosed.
func adminCall[T any](ctx context.Context, a *Admin, call func(context.Context) (T, error)) (T, error) {
	var zero T
	if !a.calls.begin() {
		return zero, ErrClientClosed
	}
	defer a.calls.end()
	ctx, stop := scoped(ctx, a.life)
	defer stop()
	if a.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.timeout)
		defer cancel()
	}
	out, err := call(ctx)
	if err == nil {
		return out, nil
	}
	switch {
	case errors.Is(context.Cause(ctx), ErrClientClosed):
		return zero, ErrClientClosed
	case ctx.Err() != nil:
		return zero, ctxError(ctx.Err(), callError(err))
	}
	return zero, callError(err)
}
