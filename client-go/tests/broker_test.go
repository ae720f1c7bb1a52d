package tests

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// repoRoot is the Brook checkout these tests belong to (client-go/tests -> ..).
var repoRoot = func() string {
	abs, err := filepath.Abs("../..")
	if err != nil {
		panic(err)
	}
	return abs
}()

var readyLine = regexp.MustCompile(`Brook ready: gRPC on [^:\s]+:(\d+)`)

// brokerProcess is the real broker, started by bin/brook (which builds the jar
// when it is missing) on 127.0.0.1 with its own data directory.
type brokerProcess struct {
	t       testing.TB
	dataDir string
	logPath string
	args    []string
	cmd     *exec.Cmd
	exited  chan struct{}
	port    string
	starts  int
}

// startBroker starts a broker that the test's cleanup stops.
func startBroker(t testing.TB, args ...string) *brokerProcess {
	t.Helper()
	dir := t.TempDir()
	b := &brokerProcess{t: t, dataDir: filepath.Join(dir, "data"), logPath: filepath.Join(dir, "broker.log"), args: args}
	b.launch("0")
	t.Cleanup(b.Stop)
	return b
}

func (b *brokerProcess) Addr() string { return "127.0.0.1:" + b.port }

func (b *brokerProcess) launch(port string) {
	b.t.Helper()
	b.starts++
	log, err := os.OpenFile(b.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		b.t.Fatal(err)
	}
	marker := fmt.Sprintf("=== start %d\n", b.starts)
	if _, err := log.WriteString(marker); err != nil {
		b.t.Fatal(err)
	}
	args := append([]string{"broker", "--data-dir", b.dataDir, "--grpc-listen", "127.0.0.1:" + port,
		"--http-listen", "127.0.0.1:0", "--set", "kafka.listen="}, b.args...) // no Kafka listener: never a clash on 9092
	cmd := exec.Command(filepath.Join(repoRoot, "bin", "brook"), args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = brokerEnv()
	// Its own process group (Stop signals the whole group); and killed with the
	// test process, so a test binary that is killed or times out leaves no broker running.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		b.t.Fatalf("start broker: %v", err)
	}
	_ = log.Close()
	b.cmd = cmd
	b.exited = make(chan struct{})
	go func() { _ = cmd.Wait(); close(b.exited) }()

	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		current := b.currentLog()
		if m := readyLine.FindStringSubmatch(current); m != nil {
			b.port = m[1]
			return
		}
		select {
		case <-b.exited:
			b.t.Fatalf("broker exited before it was ready:\n%s", current)
		case <-time.After(50 * time.Millisecond):
		}
	}
	b.Kill()
	b.t.Fatalf("broker not ready in 90 s:\n%s", b.currentLog())
}

// brokerEnv is this process's environment without BROOK_ settings a developer may have set.
func brokerEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "BROOK_") {
			env = append(env, kv)
		}
	}
	return env
}

// currentLog is the broker's log since its latest start.
func (b *brokerProcess) currentLog() string {
	raw, _ := os.ReadFile(b.logPath)
	all := string(raw)
	if i := strings.LastIndex(all, fmt.Sprintf("=== start %d\n", b.starts)); i >= 0 {
		return all[i:]
	}
	return all
}

// Stop ends the broker with SIGTERM and waits; SIGKILL after 30 s.
func (b *brokerProcess) Stop() { b.signal(syscall.SIGTERM, 30*time.Second) }

// Kill ends the broker with SIGKILL: nothing is flushed or closed.
func (b *brokerProcess) Kill() { b.signal(syscall.SIGKILL, 30*time.Second) }

// Freeze stops the broker with SIGSTOP: its connections stay open, nothing is
// answered until Thaw.
func (b *brokerProcess) Freeze() { _ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGSTOP) }

// Thaw lets a frozen broker run again (SIGCONT).
func (b *brokerProcess) Thaw() { _ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGCONT) }

func (b *brokerProcess) signal(sig syscall.Signal, wait time.Duration) {
	if b.cmd == nil {
		return
	}
	select {
	case <-b.exited:
	default:
		_ = syscall.Kill(-b.cmd.Process.Pid, sig)
		select {
		case <-b.exited:
		case <-time.After(wait):
			_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
			<-b.exited
		}
	}
	b.cmd = nil
}

// Restart stops the broker and starts it again on the same port and data directory.
func (b *brokerProcess) Restart() {
	b.t.Helper()
	b.Stop()
	b.launch(b.port)
}

// withRawConn runs f with a plain gRPC connection, independent of the client
// under test, and closes it before returning (so leak checks do not see it).
func (b *brokerProcess) withRawConn(t testing.TB, f func(cc *grpc.ClientConn)) {
	t.Helper()
	cc, err := grpc.NewClient(b.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cc.Close() }()
	f(cc)
}

var (
	nameSeq   atomic.Int64
	nameChars = regexp.MustCompile(`[^A-Za-z0-9]+`)
)

// uniqueName is a topic or group name unique to this test run, after the test's name.
func uniqueName(t testing.TB, prefix string) string {
	name := fmt.Sprintf("%s-%s-%d", prefix, strings.ToLower(nameChars.ReplaceAllString(t.Name(), "-")), nameSeq.Add(1))
	if len(name) > 200 {
		name = name[:200]
	}
	return name
}

// createTopic makes a topic with a name unique to this test run, through the raw API.
func (b *brokerProcess) createTopic(t testing.TB, partitions int32, config map[string]string) string {
	t.Helper()
	name := uniqueName(t, "go")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	b.withRawConn(t, func(cc *grpc.ClientConn) {
		_, err = brookv1.NewAdminServiceClient(cc).CreateTopic(ctx,
			&brookv1.CreateTopicRequest{Name: name, Partitions: partitions, Config: config})
	})
	if err != nil {
		t.Fatalf("create topic %s: %v", name, err)
	}
	return name
}

// produceRaw writes records to one partition through the raw ProduceService,
// independent of the client under test, failing the test on any error.
func (b *brokerProcess) produceRaw(t testing.TB, topic string, partition int32, records ...*brookv1.Record) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var resp *brookv1.ProduceResponse
	var err error
	b.withRawConn(t, func(cc *grpc.ClientConn) {
		resp, err = brookv1.NewProduceServiceClient(cc).Produce(ctx, &brookv1.ProduceRequest{
			Batches: []*brookv1.ProduceBatch{{Topic: topic, Partition: &partition, Records: records}},
		})
	})
	if err != nil {
		t.Fatalf("produce to %s/%d: %v", topic, partition, err)
	}
	for _, r := range resp.GetResults() {
		if r.GetErrorCode() != brookv1.ErrorCode_ERROR_CODE_UNSPECIFIED {
			t.Fatalf("produce to %s/%d: %v %s", topic, partition, r.GetErrorCode(), r.GetErrorMessage())
		}
	}
}

// fetchAll reads every record of a partition from offset 0 through the raw API.
func (b *brokerProcess) fetchAll(t testing.TB, topic string, partition int32) []*brookv1.Record {
	t.Helper()
	var out []*brookv1.Record
	b.withRawConn(t, func(cc *grpc.ClientConn) { out = fetchFrom(t, brookv1.NewFetchServiceClient(cc), topic, partition) })
	return out
}

func fetchFrom(t testing.TB, client brookv1.FetchServiceClient, topic string, partition int32) []*brookv1.Record {
	t.Helper()
	var out []*brookv1.Record
	offset := int64(0)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		resp, err := client.Fetch(ctx, &brookv1.FetchRequest{
			Partitions: []*brookv1.FetchPartition{{Topic: topic, Partition: partition, Offset: offset}},
			MaxRecords: 10000,
		})
		cancel()
		if err != nil {
			t.Fatalf("fetch %s/%d: %v", topic, partition, err)
		}
		p := resp.GetPartitions()[0]
		if p.GetErrorCode() != brookv1.ErrorCode_ERROR_CODE_UNSPECIFIED {
			t.Fatalf("fetch %s/%d: %v %s", topic, partition, p.GetErrorCode(), p.GetErrorMessage())
		}
		out = append(out, p.GetRecords()...)
		if p.GetNextOffset() >= p.GetEndOffset() || len(p.GetRecords()) == 0 {
			return out
		}
		offset = p.GetNextOffset()
	}
}

// sharedBroker serves the tests that do not stop or restart a broker.
var sharedBroker *brokerProcess

func TestMain(m *testing.M) {
	os.Exit(runWithSharedBroker(m))
}

func runWithSharedBroker(m *testing.M) int {
	tb := &harnessTB{name: "shared-broker"}
	defer tb.cleanup()
	sharedBroker = startBroker(tb)
	if tb.failed {
		return 1
	}
	return m.Run()
}

// harnessTB lets TestMain use the harness's testing.TB helpers outside a test.
type harnessTB struct {
	testing.TB
	name     string
	failed   bool
	cleanups []func()
	dirs     []string
}

func (h *harnessTB) Helper()           {}
func (h *harnessTB) Name() string      { return h.name }
func (h *harnessTB) Cleanup(f func())  { h.cleanups = append(h.cleanups, f) }
func (h *harnessTB) Fatal(args ...any) { h.Fatalf("%s", fmt.Sprint(args...)) }
func (h *harnessTB) Fatalf(f string, args ...any) {
	h.failed = true
	fmt.Fprintf(os.Stderr, "harness: "+f+"\n", args...)
	h.cleanup()
	os.Exit(1)
}
func (h *harnessTB) TempDir() string {
	dir, err := os.MkdirTemp("", "brook-go-")
	if err != nil {
		h.Fatal(err)
	}
	h.dirs = append(h.dirs, dir)
	return dir
}
func (h *harnessTB) cleanup() {
	for i := len(h.cleanups) - 1; i >= 0; i-- {
		h.cleanups[i]()
	}
	h.cleanups = nil
	for _, d := range h.dirs {
		_ = os.RemoveAll(d)
	}
	h.dirs = nil
}
