package tests

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// testPKI is a CA made at test time with a broker certificate for 127.0.0.1
// and client certificates, all written as PEM files (keys as PKCS#8).
type testPKI struct {
	dir    string
	caCert *x509.Certificate
	caKey  *ecdsa.PrivateKey
	CA     string
}

func newTestPKI(t *testing.T, dir string) *testPKI {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "brook test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(der)
	p := &testPKI{dir: dir, caCert: ca, caKey: key, CA: filepath.Join(dir, "ca.pem")}
	writePEM(t, p.CA, "CERTIFICATE", der)
	return p
}

// issue writes name.pem and name-key.pem: a certificate with the given CN,
// for the server (127.0.0.1 and localhost) or a client.
func (p *testPKI) issue(t *testing.T, name, cn string, server bool) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
		tmpl.DNSNames = []string{"localhost"}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, &key.PublicKey, p.caKey)
	if err != nil {
		t.Fatal(err)
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(p.dir, name+".pem"), filepath.Join(p.dir, name+"-key.pem")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "PRIVATE KEY", pkcs8)
	return certFile, keyFile
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func writeLines(t *testing.T, path string, lines ...string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A broker serving TLS only, with tokens, optional client certificates and
// per-topic permissions, as docs/CONFIGURATION.md describes; the Go clients
// reach it with WithTLSFiles and WithToken, and are refused as the broker says.
func TestClientsWithTLSTokensAndClientCertificates(t *testing.T) {
	dir := t.TempDir()
	pki := newTestPKI(t, dir)
	brokerCert, brokerKey := pki.issue(t, "broker", "localhost", true)
	carolCert, carolKey := pki.issue(t, "carol", "carol", false)
	tokens := writeLines(t, filepath.Join(dir, "tokens"), "# principal=token", "alice=alice-s3cret", "bob=bob-s3cret")
	permissions := writeLines(t, filepath.Join(dir, "permissions"),
		"alice produce,consume,admin topic:secure-*",
		"alice consume group:secure-*",
		"bob consume topic:secure-*",
		"carol * topic:*")
	b := startBroker(t, "--set", "tls.cert.file="+brokerCert, "--set", "tls.key.file="+brokerKey,
		"--set", "tls.client.ca.file="+pki.CA, "--set", "tls.client.auth=optional",
		"--set", "auth.enabled=true", "--set", "auth.tokens.file="+tokens, "--set", "auth.permissions.file="+permissions)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tlsOnly := brook.WithTLSFiles(pki.CA, "", "")

	alice, err := brook.NewAdmin(brook.WithBroker(b.Addr()), tlsOnly, brook.WithToken("alice-s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = alice.Close(context.Background()) }()
	topic := "secure-" + uniqueName(t, "t")
	if _, err := alice.CreateTopic(ctx, topic, 2, nil); err != nil {
		t.Fatalf("alice creates %s: %v", topic, err)
	}
	if _, err := alice.CreateTopic(ctx, "elsewhere", 1, nil); !errors.Is(err, brook.ErrPermissionDenied) ||
		!strings.Contains(err.Error(), "admin") || !strings.Contains(err.Error(), "elsewhere") {
		t.Fatalf("alice creating a topic outside her prefix: want ErrPermissionDenied naming admin and the topic, got %v", err)
	}

	p, err := brook.NewProducer(brook.WithBroker(b.Addr()), tlsOnly, brook.WithToken("alice-s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range p.ProduceSync(ctx, &brook.Record{Topic: topic, Partition: 0, Value: []byte("over tls")}) {
		if r.Err != nil {
			t.Fatalf("alice produces: %v", r.Err)
		}
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}

	// bob may consume, not produce; a consumer group of alice's reads what she wrote
	bobProducer, err := brook.NewProducer(brook.WithBroker(b.Addr()), tlsOnly, brook.WithToken("bob-s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	denied := bobProducer.ProduceSync(ctx, &brook.Record{Topic: topic, Partition: 0, Value: []byte("no")})
	if len(denied) != 1 || !errors.Is(denied[0].Err, brook.ErrPermissionDenied) {
		t.Fatalf("bob produces: want ErrPermissionDenied, got %+v", denied)
	}
	_ = bobProducer.Close(ctx)

	c, err := brook.NewConsumer(brook.WithBroker(b.Addr()), tlsOnly, brook.WithToken("alice-s3cret"),
		brook.WithGroup("secure-readers"), brook.WithTopics(topic), brook.WithResetPosition(brook.Earliest))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var got []string
	for len(got) == 0 && ctx.Err() == nil {
		recs, err := c.Poll(ctx)
		if err != nil {
			t.Fatalf("alice polls: %v", err)
		}
		for _, r := range recs {
			got = append(got, string(r.Value))
		}
	}
	if len(got) != 1 || got[0] != "over tls" {
		t.Fatalf("consumed %q", got)
	}

	// carol is known by her client certificate alone
	carol, err := brook.NewAdmin(brook.WithBroker(b.Addr()), brook.WithTLSFiles(pki.CA, carolCert, carolKey))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = carol.Close(context.Background()) }()
	if _, err := carol.CreateTopic(ctx, "carols-"+uniqueName(t, "t"), 1, nil); err != nil {
		t.Fatalf("carol (client certificate) creates a topic: %v", err)
	}

	// refused: an unknown token, no credentials, and plaintext
	for name, opts := range map[string][]brook.AdminOption{
		"unknown token":  {tlsOnly, brook.WithToken("guess")},
		"no credentials": {tlsOnly},
	} {
		a, err := brook.NewAdmin(append(opts, brook.WithBroker(b.Addr()))...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = a.ListTopics(ctx)
		_ = a.Close(context.Background())
		if !errors.Is(err, brook.ErrUnauthenticated) || strings.Contains(err.Error(), "guess") {
			t.Fatalf("%s: want ErrUnauthenticated without the token in the message, got %v", name, err)
		}
	}
	plain, err := brook.NewAdmin(brook.WithBroker(b.Addr()), brook.WithToken("alice-s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	short, cancelShort := context.WithTimeout(ctx, 5*time.Second)
	defer cancelShort()
	if _, err := plain.ListTopics(short); err == nil {
		t.Fatal("a plaintext client reached a TLS-only broker")
	}
	_ = plain.Close(context.Background())
}
