package tests

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// buildExamples builds client-go/examples/... into a directory of the test's
// and returns it.
func buildExamples(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", dir+string(filepath.Separator), "./examples/...")
	cmd.Dir = filepath.Join(repoRoot, "client-go")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/...: %v\n%s", err, out)
	}
	return dir
}

// runExample runs one built example with args, bounded by a minute, and returns its stdout.
func runExample(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(dir, name), args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

var (
	exampleProduced = regexp.MustCompile(`^produced partition=(\d+) offset=(\d+) key=(\S*) value=(\S*) headers=(\S*)$`)
	exampleConsumed = regexp.MustCompile(`^consumed partition=(\d+) offset=(\d+) key=(\S*) value=(\S*) headers=(\S*)$`)
	exampleReceived = regexp.MustCompile(`^received partition=(\d+) offset=(\d+) attempt=(\d+) key=(\S*) value=(\S*) -> (ack|nack)$`)
)

// exampleLines parses the lines of out that match re (each as its submatches)
// and checks the other lines are exactly the expected summary.
func exampleLines(t *testing.T, out string, re *regexp.Regexp, summary string) [][]string {
	t.Helper()
	var rows [][]string
	var other []string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			rows = append(rows, m[1:])
		} else {
			other = append(other, line)
		}
	}
	want := []string(nil)
	if summary != "" {
		want = []string{summary}
	}
	if !slices.Equal(other, want) {
		t.Fatalf("unexpected lines %q (want only %q besides the records) in:\n%s", other, want, out)
	}
	return rows
}

// The three examples work against a real broker: what produce writes (keys,
// values, headers, partitions, offsets) is what consume reads, and ack nacks
// one record, gets it again with attempt 2, and acks every record once.
func TestExamplesProduceConsumeAck(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 3, nil)
	const n = 8
	bin := buildExamples(t)

	// produce: n records, "key-i" / "value-i" with headers source=example, seq=i.
	out := runExample(t, bin, "produce", "-broker", b.Addr(), "-topic", topic, "-n", fmt.Sprint(n))
	produced := exampleLines(t, out, exampleProduced, "")
	if len(produced) != n {
		t.Fatalf("produce printed %d records, want %d:\n%s", len(produced), n, out)
	}
	want := map[string]string{} // "partition/offset" -> "key value headers"
	for _, p := range produced {
		key, value, headers := p[2], p[3], p[4]
		i := strings.TrimPrefix(key, "key-")
		if value != "value-"+i || headers != "source=example,seq="+i {
			t.Fatalf("produce printed key %s value %s headers %s", key, value, headers)
		}
		want[p[0]+"/"+p[1]] = key + " " + value + " " + headers
	}
	if len(want) != n {
		t.Fatalf("produce printed duplicate partition/offset pairs:\n%s", out)
	}
	// And the broker holds exactly those records where produce said.
	for partition := int32(0); partition < 3; partition++ {
		for _, r := range b.fetchAll(t, topic, partition) {
			hs := make([]string, len(r.GetHeaders()))
			for i, h := range r.GetHeaders() {
				hs[i] = h.GetKey() + "=" + string(h.GetValue())
			}
			at := fmt.Sprintf("%d/%d", partition, r.GetOffset())
			if got := string(r.GetKey()) + " " + string(r.GetValue()) + " " + strings.Join(hs, ","); want[at] != got {
				t.Fatalf("the broker holds %q at %s, produce printed %q", got, at, want[at])
			}
		}
	}

	// consume: a group of its own reads every record once, as produced.
	out = runExample(t, bin, "consume", "-broker", b.Addr(), "-topic", topic, "-group", ackGroupName(t)+"-offset",
		"-n", fmt.Sprint(n), "-timeout", "30s")
	consumed := exampleLines(t, out, exampleConsumed, fmt.Sprintf("consumed %d records", n))
	got := map[string]string{}
	for _, c := range consumed {
		got[c[0]+"/"+c[1]] = c[2] + " " + c[3] + " " + c[4]
	}
	if len(consumed) != n || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("consume read %v, produce wrote %v", got, want)
	}

	// ack: an ack-mode group of its own: the first record is nacked, comes
	// again with attempt 2 and is acked; every record is acked exactly once.
	out = runExample(t, bin, "ack", "-broker", b.Addr(), "-topic", topic, "-group", ackGroupName(t)+"-ack",
		"-n", fmt.Sprint(n), "-timeout", "30s")
	received := exampleLines(t, out, exampleReceived, fmt.Sprintf("acked %d records", n))
	if len(received) != n+1 {
		t.Fatalf("ack printed %d deliveries, want %d:\n%s", len(received), n+1, out)
	}
	first := received[0]
	if first[2] != "1" || first[5] != "nack" {
		t.Fatalf("the first delivery is %v, want attempt 1 nacked:\n%s", first, out)
	}
	acked := map[string]string{}
	for _, r := range received[1:] {
		at := r[0] + "/" + r[1]
		if r[5] != "ack" {
			t.Fatalf("a second nack: %v\n%s", r, out)
		}
		wantAttempt := "1"
		if at == first[0]+"/"+first[1] {
			wantAttempt = "2"
		}
		if r[2] != wantAttempt {
			t.Fatalf("%s delivered with attempt %s, want %s:\n%s", at, r[2], wantAttempt, out)
		}
		if _, dup := acked[at]; dup {
			t.Fatalf("%s acked twice:\n%s", at, out)
		}
		acked[at] = r[3] + " " + r[4]
	}
	for at, kvh := range want {
		if fields := strings.Fields(kvh); acked[at] != fields[0]+" "+fields[1] {
			t.Fatalf("ack got %q at %s, produce wrote %q:\n%s", acked[at], at, kvh, out)
		}
	}
}
