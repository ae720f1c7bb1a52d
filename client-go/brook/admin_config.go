package brook

import "time"

const adminDefaultRequestTimeout = 30 * time.Second

// adminConfig is NewAdmin's configuration.
type adminConfig struct {
	conn           connConfig
	requestTimeout time.Duration
}

func (c *adminConfig) validate(p *problems) {
	c.conn.validate(p)
	if c.requestTimeout < 0 {
		p.add("WithAdminRequestTimeout(%v): must not be negative (0: no timeout of its own)", c.requestTimeout)
	}
}

// adminOption sets an option only the Admin has.
type adminOption func(*adminConfig)

func (o adminOption) applyAdmin(c *adminConfig) { o(c) }

// WithAdminRequestTimeout is the deadline of each admin call (default 30s),
// applied on top of the call's context; 0: the context's only.
func WithAdminRequestTimeout(d time.Duration) AdminOption {
	return adminOption(func(c *adminConfig) { c.requestTimeout = d })
}
