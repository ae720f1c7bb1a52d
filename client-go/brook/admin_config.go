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
		p.add("WithRequestTimeout(%v): must not be negative (0: no timeout of its own)", c.requestTimeout)
	}
}
