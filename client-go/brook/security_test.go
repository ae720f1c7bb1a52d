package brook

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func securityProblems(t *testing.T, opts ...AdminOption) []string {
	t.Helper()
	a, err := NewAdmin(opts...)
	if err == nil {
		_ = a.Close(context.Background())
		return nil
	}
	var ce *ConfigError
	if !errors.As(err, &ce) || !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("want a *ConfigError, got %v", err)
	}
	return ce.Problems
}

func TestSecurityOptionsAreCheckedWithTheOtherOptions(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	conn, err := grpc.NewClient("127.0.0.1:1", grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cases := []struct {
		name string
		opts []AdminOption
		want string
	}{
		{"token in plaintext beyond loopback", []AdminOption{WithBroker("broker.example:7070"), WithToken("t")},
			"without TLS: a token travels in plaintext only to a loopback broker"},
		{"empty token", []AdminOption{WithBroker("127.0.0.1:7070"), WithToken("")}, "WithToken: must be a non-empty"},
		{"token with a line break", []AdminOption{WithBroker("127.0.0.1:7070"), WithToken("a\nb")}, "WithToken"},
		{"shared conn", []AdminOption{WithConn(conn), WithToken("t")}, "a WithConn connection brings its own"},
		{"both TLS options", []AdminOption{WithBroker("127.0.0.1:7070"), WithTLS(nil), WithTLSFiles("", "", "")},
			"exclude each other"},
		{"missing CA file", []AdminOption{WithBroker("127.0.0.1:7070"), WithTLSFiles(filepath.Join(dir, "nope.pem"), "", "")},
			"WithTLSFiles: CA file"},
		{"CA file without PEM", []AdminOption{WithBroker("127.0.0.1:7070"), WithTLSFiles(notPEM, "", "")},
			"holds no PEM certificate"},
		{"certificate without key", []AdminOption{WithBroker("127.0.0.1:7070"), WithTLSFiles("", notPEM, "")},
			"needs both certFile and keyFile"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := securityProblems(t, c.opts...)
			if len(got) != 1 || !strings.Contains(got[0], c.want) {
				t.Fatalf("problems %q, want one containing %q", got, c.want)
			}
		})
	}
	for _, valid := range [][]AdminOption{
		{WithBroker("broker.example:7070"), WithTLS(nil), WithToken("t0k3n")},
		{WithBroker("localhost:7070"), WithToken("t0k3n")},
		{WithBroker("[::1]:7070"), WithToken("t0k3n")},
	} {
		if got := securityProblems(t, valid...); got != nil {
			t.Fatalf("valid options refused: %q", got)
		}
	}
}

func TestBearerTokenGoesInTheAuthorizationHeaderAndNeverPrints(t *testing.T) {
	md, err := bearerToken("s3cret").GetRequestMetadata(context.Background())
	if err != nil || md["authorization"] != "Bearer s3cret" {
		t.Fatalf("metadata %v, %v", md, err)
	}
	if s := fmt.Sprintf("%v %s", bearerToken("s3cret"), bearerToken("s3cret")); strings.Contains(s, "s3cret") {
		t.Fatalf("the token prints: %s", s)
	}
}
