package brook

import "fmt"

// Static membership (WithGroupInstanceID, Kafka's group.instance.id): the
// member never sends LeaveGroup (Close, and a missed Poll deadline, leave it
// in the group until its session times out, so a restart takes its place
// again without a rebalance), and once a newer consumer with the same
// instance id took its place it is fenced for good, as Kafka's
// FencedInstanceIdException is fatal: every Poll returns ErrMemberReplaced.

// leaves is whether the member sends LeaveGroup: only a dynamic one does.
func (m *consumerMembership) leaves() bool {
	return m.c.cfg.instanceID == ""
}

// replacedLocked records that the broker answered MEMBER_REPLACED; the
// membership is lost for good. m.mu is held.
func (m *consumerMembership) replacedLocked(err error) {
	if m.replaced == nil {
		m.replaced = err
		m.c.log.Warn("brook: fenced: a newer consumer with this group instance id took the member's place",
			"group", m.c.cfg.group, "instance_id", m.c.cfg.instanceID, "error", err)
	}
	m.lost = true
}

// replacedErr is the error every Poll returns once the member was fenced, or nil.
func (m *consumerMembership) replacedErr() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.replaced == nil {
		return nil
	}
	return fmt.Errorf("brook: group instance id %q: close this consumer: %w", m.c.cfg.instanceID, m.replaced)
}
