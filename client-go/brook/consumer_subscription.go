package brook

import (
	"slices"
)

// Subscription lists the topics the consumer subscribes to, sorted: those of
// WithTopics, or those WithTopicPattern matched when the member last joined
// its group (nil before the first join); nil for a consumer without a group.
func (c *Consumer) Subscription() []string {
	if c.member == nil {
		return nil
	}
	var topics []string
	if c.cfg.topicPattern == "" {
		topics = slices.Clone(c.cfg.topics)
	} else {
		c.member.mu.Lock()
		topics = slices.Clone(c.member.matched)
		c.member.mu.Unlock()
	}
	slices.Sort(topics)
	return topics
}
