package brook

import (
	"errors"
	"log/slog"
	"slices"
	"sync"
)

// consumerUnknownTopics are the subscribed topics the broker did not know at
// the member's last join (JoinGroupResponse.unknown_topics). The member waits
// for them as Kafka's consumer does: once one is created the group
// rebalances and the next join gets its partitions. Goroutine-safe.
type consumerUnknownTopics struct {
	mu      sync.Mutex
	missing []string // sorted
}

// update takes a join's answer. It logs one warning per topic that went
// missing (again when a topic that existed is deleted), not one per join,
// and one info line when a missing topic appears.
func (u *consumerUnknownTopics) update(log *slog.Logger, group string, unknown []string) {
	now := slices.Clone(unknown)
	slices.Sort(now)
	now = slices.Compact(now)
	u.mu.Lock()
	before := u.missing
	u.missing = now
	u.mu.Unlock()
	for _, t := range now {
		if !slices.Contains(before, t) {
			log.Warn("brook: subscribed topic does not exist; the consumer gets its partitions once it is created",
				"group", group, "topic", t)
		}
	}
	for _, t := range before {
		if !slices.Contains(now, t) {
			log.Info("brook: subscribed topic exists now", "group", group, "topic", t)
		}
	}
}

func (u *consumerUnknownTopics) list() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.missing)
}

// consumerTopicGone: a fetch found an assigned topic or partition gone (it
// was deleted). For a group member that is not the end: the group rebalances
// it away (the member's next join reports it unknown), so Poll retries.
func consumerTopicGone(err error) bool {
	return errors.Is(err, ErrUnknownTopic) || errors.Is(err, ErrUnknownPartition)
}

// markGoneLocked leaves the partitions a fetch found gone out of the next
// fetches (consumerPartition.gone), with one warning per fetch that found
// some. refs are the fetch's partitions; goneErrs their errors by index. c.mu is held.
func (c *Consumer) markGoneLocked(refs []consumerPartitionRef, goneErrs map[int]error) {
	var marked []TopicPartition
	for i, err := range goneErrs {
		if r := refs[i]; c.parts.current(r) && r.state.gone == nil {
			r.state.gone = err
			marked = append(marked, r.tp)
		}
	}
	if len(marked) == 0 {
		return
	}
	slices.SortFunc(marked, consumerCompareTP)
	if c.subscribed {
		c.log.Warn("brook: assigned partitions are gone (topic deleted); reading the others until the group rebalances them away",
			"group", c.cfg.group, "partitions", marked)
	} else {
		c.log.Warn("brook: assigned partitions are gone (topic deleted); reading the others until they are assigned again",
			"partitions", marked)
	}
}
