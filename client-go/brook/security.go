package brook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
)

// security is how a client's own connection is secured: TLS (with a client
// certificate for mutual TLS) and a bearer token. Zero value: plaintext,
// no token, as a broker without tls.* and auth.* settings expects.
type security struct {
	tls      *tls.Config
	tlsSet   bool
	files    *tlsFiles
	token    string
	tokenSet bool
}

type tlsFiles struct{ ca, cert, key string }

// WithTLS connects over TLS with cfg (nil: verify the broker against the
// system's roots). For mutual TLS set cfg.Certificates; the broker takes the
// certificate's subject CN as the principal.
func WithTLS(cfg *tls.Config) Option {
	return connOption(func(c *connConfig) {
		c.security.tlsSet = true
		if cfg != nil {
			c.security.tls = cfg.Clone()
		}
	})
}

// WithTLSFiles connects over TLS using PEM files: caFile holds the CAs that
// sign the broker's certificate ("" for the system's roots); certFile and
// keyFile are a client certificate for mutual TLS (both or neither).
func WithTLSFiles(caFile, certFile, keyFile string) Option {
	return connOption(func(c *connConfig) { c.security.files = &tlsFiles{caFile, certFile, keyFile} })
}

// WithToken sends a bearer token with every call (gRPC metadata
// "authorization: Bearer <token>"), which a broker with auth.enabled maps to
// a principal. Without WithTLS or WithTLSFiles it is refused unless the
// broker is on loopback, so a token never crosses a network in plaintext
// (as the Java client).
func WithToken(token string) Option {
	return connOption(func(c *connConfig) { c.security.token, c.security.tokenSet = token, true })
}

func (s *security) validate(p *problems, address string, shared bool) {
	if shared && (s.tlsSet || s.files != nil || s.tokenSet) {
		p.add("WithTLS, WithTLSFiles and WithToken secure the connection WithBroker makes; a WithConn connection " +
			"brings its own credentials")
	}
	if s.tlsSet && s.files != nil {
		p.add("WithTLS and WithTLSFiles exclude each other")
	}
	if s.tokenSet && (s.token == "" || strings.ContainsAny(s.token, "\r\n ")) {
		p.add("WithToken: must be a non-empty token without spaces or line breaks")
	}
	if s.tokenSet && !s.tlsSet && s.files == nil && address != "" && !loopback(address) {
		p.add("WithToken to %s without TLS: a token travels in plaintext only to a loopback broker; "+
			"add WithTLS or WithTLSFiles", address)
	}
	if s.files != nil {
		cfg, err := s.files.load()
		if err != nil {
			p.add("WithTLSFiles: %v", err)
		} else {
			s.tls, s.tlsSet = cfg, true
		}
	}
}

func (f *tlsFiles) load() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.ca != "" {
		pem, err := os.ReadFile(f.ca)
		if err != nil {
			return nil, fmt.Errorf("CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s holds no PEM certificate", f.ca)
		}
		cfg.RootCAs = pool
	}
	if (f.cert == "") != (f.key == "") {
		return nil, fmt.Errorf("a client certificate needs both certFile and keyFile")
	}
	if f.cert != "" {
		pair, err := tls.LoadX509KeyPair(f.cert, f.key)
		if err != nil {
			return nil, fmt.Errorf("client certificate %s with key %s: %w", f.cert, f.key, err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

func loopback(address string) bool {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// dialOptions are the transport and per-call credentials for the client's own connection.
func (s *security) dialOptions() []grpc.DialOption {
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if s.tlsSet {
		cfg := s.tls
		if cfg == nil {
			cfg = &tls.Config{MinVersion: tls.VersionTLS12}
		}
		opts[0] = grpc.WithTransportCredentials(credentials.NewTLS(cfg))
	}
	if s.tokenSet {
		opts = append(opts, grpc.WithPerRPCCredentials(bearerToken(s.token)))
	}
	return opts
}

// bearerToken is per-call credentials carrying a token; its String hides it.
type bearerToken string

func (t bearerToken) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(t)}, nil
}

// RequireTransportSecurity is false so that a loopback broker without TLS works (see WithToken).
func (t bearerToken) RequireTransportSecurity() bool { return false }

func (t bearerToken) String() string { return "bearer token ****" }
