package brook

import (
	"fmt"
	"math"
	"time"
)

// maxDuration is the longest duration an option takes: the protocol carries
// milliseconds in int32 fields (as Kafka's int configs).
const maxDuration = time.Duration(math.MaxInt32) * time.Millisecond

// problems collects what is wrong with a client's options, so that one
// ConfigError names them all.
type problems struct{ list []string }

func (p *problems) add(format string, args ...any) {
	p.list = append(p.list, fmt.Sprintf(format, args...))
}

// positive requires v > 0.
func (p *problems) positive(option string, v int64) {
	if v <= 0 {
		p.add("%s(%d): must be positive", option, v)
	}
}

// duration requires min <= d <= max.
func (p *problems) duration(option string, d, min, max time.Duration) {
	if d < min || d > max {
		p.add("%s(%v): must be in [%v, %v]", option, d, min, max)
	}
}

// err is nil without problems, else a *ConfigError naming the client.
func (p *problems) err(client string) error {
	if len(p.list) == 0 {
		return nil
	}
	return &ConfigError{Client: client, Problems: p.list}
}
