package brook

import (
	"log/slog"
	"net"
	"strconv"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

// Version is this client's version, sent in the gRPC user agent.
const Version = "0.1.0"

const (
	defaultClientID  = "brook-go"
	defaultKeepalive = 30 * time.Second
	minKeepalive     = 10 * time.Second
	// Fetch and receive answers can carry many records; the broker bounds them by max_bytes.
	maxReceiveBytes = 64 << 20
)

// connConfig is the part of every client's config that says how to reach the
// broker, and where the client logs (WithLogger).
type connConfig struct {
	address     string
	shared      *grpc.ClientConn
	clientID    string
	dialOptions []grpc.DialOption
	keepalive   time.Duration
	security    security
	logger      *slog.Logger
}

func defaultConnConfig() connConfig {
	return connConfig{clientID: defaultClientID, keepalive: defaultKeepalive, logger: slog.Default()}
}

func (c *connConfig) validate(p *problems) {
	switch {
	case c.address == "" && c.shared == nil:
		p.add("a broker is required: WithBroker(\"host:port\") or WithConn(conn)")
	case c.address != "" && c.shared != nil:
		p.add("WithBroker and WithConn exclude each other")
	case c.address != "":
		host, port, err := net.SplitHostPort(c.address)
		if err != nil {
			p.add("WithBroker(%q): want host:port (%v)", c.address, err)
			break
		}
		n, err := strconv.Atoi(port)
		if host == "" || err != nil || n < 1 || n > 65535 {
			p.add("WithBroker(%q): want host:port with a port in 1..65535", c.address)
		}
	}
	if c.clientID == "" {
		p.add("WithClientID: must not be empty")
	}
	c.security.validate(p, c.address, c.shared != nil)
	if c.keepalive < minKeepalive {
		p.add("WithKeepalive(%v): at least %v", c.keepalive, minKeepalive)
	}
	if c.logger == nil {
		p.add("WithLogger: must not be nil")
	}
}

// dial returns the connection to use and whether the client owns it (and must close it).
func (c *connConfig) dial() (conn *grpc.ClientConn, owned bool, err error) {
	if c.shared != nil {
		return c.shared, false, nil
	}
	opts := append(c.security.dialOptions(),
		grpc.WithUserAgent("brook-go/"+Version),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{
			Time:                c.keepalive,
			Timeout:             10 * time.Second,
			PermitWithoutStream: true,
		}),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxReceiveBytes)),
	)
	opts = append(opts, c.dialOptions...)
	conn, err = grpc.NewClient(c.address, opts...)
	if err != nil {
		return nil, false, err
	}
	return conn, true, nil
}
