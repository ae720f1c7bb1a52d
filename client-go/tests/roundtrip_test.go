package tests

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// runCLI runs bin/brook (the Java client behind produce and consume) with
// args and stdin, bounded by two minutes, without the developer's BROOK_
// settings, and returns its stdout; a non-zero exit fails the test.
func runCLI(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(repoRoot, "bin", "brook"), args...)
	cmd.Env = brokerEnv()
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("brook %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// roundTripHeaders prints headers as the CLI's %h does: name=value, comma-separated.
func roundTripHeaders(hs []brook.Header) string {
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = h.Key + "=" + string(h.Value)
	}
	return strings.Join(parts, ",")
}

// Go → Java: what the Go Producer writes, the Java consumer of the CLI (in a
// group) reads with the same partition, offset, key, value and headers
// (repeated header names and their order kept). The CLI's %k prints an absent
// key and the empty key alike (nothing), so the two are told apart by where
// they went: the empty key is hashed, the absent one is not.
func TestRoundTripGoProducerToJavaConsumer(t *testing.T) {
	b := sharedBroker
	const partitions = 3
	topic := b.createTopic(t, partitions, nil)
	h := func(kv ...string) []brook.Header {
		var out []brook.Header
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, brook.Header{Key: kv[i], Value: []byte(kv[i+1])})
		}
		return out
	}
	records := []*brook.Record{
		{Topic: topic, Key: []byte("alpha"), Value: []byte("v-alpha"), Headers: h("trace", "abc", "trace", "def", "env", "prod")},
		{Topic: topic, Key: []byte("beta"), Value: []byte("v-beta"), Headers: h("one", "1")},
		{Topic: topic, Key: []byte("alpha"), Value: []byte("v-alpha-2"), Headers: h("trace", "ghi")},
		{Topic: topic, Key: []byte{}, Value: []byte("v-empty-key"), Headers: h("k", "empty")},
		{Topic: topic, Value: []byte("v-no-key"), Headers: h("trace", "1", "trace", "2")},
		{Topic: topic, Key: []byte("ключ"), Value: []byte("значение"), Headers: h("lang", "ru", "x", "")},
		{Topic: topic, Key: []byte("gamma"), Value: []byte("v-no-headers")},
	}
	p := newProducer(t, b)
	if err := p.ProduceSync(testCtx(t, 60*time.Second), records...).FirstErr(); err != nil {
		t.Fatal(err)
	}

	out := runCLI(t, "", "consume", "--broker", b.Addr(), "--group", consumerGroupName(t), "--from", "earliest",
		"-n", fmt.Sprint(len(records)), "--format", "%p|%o|%k|%v|%h", topic)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(records) {
		t.Fatalf("the CLI printed %d lines, %d records were produced:\n%s", len(lines), len(records), out)
	}
	byValue := map[string][]string{}
	for _, line := range lines {
		f := strings.SplitN(line, "|", 5)
		if len(f) != 5 {
			t.Fatalf("unexpected line %q in:\n%s", line, out)
		}
		if _, dup := byValue[f[3]]; dup {
			t.Fatalf("value %q printed twice:\n%s", f[3], out)
		}
		byValue[f[3]] = f
	}
	for _, r := range records {
		f, ok := byValue[string(r.Value)]
		if !ok {
			t.Fatalf("the CLI did not print %q:\n%s", r.Value, out)
		}
		want := []string{fmt.Sprint(r.Partition), fmt.Sprint(r.Offset), string(r.Key), string(r.Value), roundTripHeaders(r.Headers)}
		if !slices.Equal(f, want) {
			t.Errorf("the Java consumer read %q, the Go producer wrote %q", f, want)
		}
		if r.Key != nil && r.Partition != brook.PartitionForKey(r.Key, partitions) {
			t.Errorf("key %q went to partition %d, PartitionForKey says %d", r.Key, r.Partition, brook.PartitionForKey(r.Key, partitions))
		}
	}
}

// Java → Go: lines the CLI's Java producer writes (split at the key separator,
// a header on every record) the Go Consumer reads with their keys (a line
// without the separator has Key nil, ":value" the empty key), values and
// headers, each keyed record on the partition brook.PartitionForKey names
// (the two clients partition alike), and in order per key.
func TestRoundTripJavaProducerToGoConsumer(t *testing.T) {
	b := sharedBroker
	const partitions = 3
	topic := b.createTopic(t, partitions, nil)
	type line struct {
		key   []byte // nil: no key
		value string
	}
	sent := []line{
		{[]byte("k1"), "v1"}, {[]byte("k2"), "v2"}, {[]byte("k3"), "v3"}, {[]byte("k1"), "v4"},
		{nil, "no key at all"}, {[]byte{}, "the empty key"}, {[]byte("k2"), "v:with:colons"}, {[]byte("k4"), "v6"},
	}
	var stdin strings.Builder
	for _, l := range sent {
		if l.key != nil {
			stdin.WriteString(string(l.key) + ":")
		}
		stdin.WriteString(l.value + "\n")
	}
	runCLI(t, stdin.String(), "produce", "--broker", b.Addr(), "-k", ":", "-H", "trace=abc", "-H", "span=def", topic)

	c := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(consumerGroupName(t)), brook.WithTopics(topic),
		brook.WithResetPosition(brook.Earliest))
	got := consumerPollN(t, c, len(sent), 60*time.Second)
	if len(got) != len(sent) {
		t.Fatalf("read %d records, the CLI produced %d", len(got), len(sent))
	}
	byValue := map[string]*brook.Record{}
	for _, r := range got {
		byValue[string(r.Value)] = r
	}
	wantHeaders := []brook.Header{{Key: "trace", Value: []byte("abc")}, {Key: "span", Value: []byte("def")}}
	lastOffset := map[string]int64{}
	for _, l := range sent {
		r := byValue[l.value]
		if r == nil {
			t.Fatalf("record %q not read; read %v", l.value, got)
		}
		if !bytes.Equal(r.Key, l.key) || (r.Key == nil) != (l.key == nil) {
			t.Errorf("record %q has key %#v, the CLI line had %#v", l.value, r.Key, l.key)
		}
		if r.Topic != topic || !slices.EqualFunc(r.Headers, wantHeaders, func(a, b brook.Header) bool {
			return a.Key == b.Key && bytes.Equal(a.Value, b.Value)
		}) {
			t.Errorf("record %q: topic %s, headers %q; want %s, %q", l.value, r.Topic, roundTripHeaders(r.Headers), topic, roundTripHeaders(wantHeaders))
		}
		if l.key != nil {
			if want := brook.PartitionForKey(l.key, partitions); r.Partition != want {
				t.Errorf("the Java producer put key %q on partition %d, brook.PartitionForKey says %d", l.key, r.Partition, want)
			}
			if prev, ok := lastOffset[string(l.key)]; ok && r.Offset <= prev {
				t.Errorf("key %q: %q at offset %d, after an earlier line's offset %d", l.key, l.value, r.Offset, prev)
			}
			lastOffset[string(l.key)] = r.Offset
		}
	}
}

// The CLI's -H is "Repeatable": -H trace=abc -H trace=def should put both
// headers, in order, on every record, and the Go Consumer should read both.
// Known CLI bug: ProduceCommand keeps -H in a Map<String, String>, so a
// repeated name keeps only its last value; that exact outcome skips the test
// (so it turns into a check once the CLI is fixed), any other fails it.
func TestRoundTripJavaProducerRepeatedHeaderNameToGoConsumer(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 1, nil)
	runCLI(t, "k:v\n", "produce", "--broker", b.Addr(), "-k", ":", "-H", "trace=abc", "-H", "trace=def", topic)
	c := consumerNew(t, brook.WithBroker(b.Addr()), brook.WithGroup(consumerGroupName(t)), brook.WithTopics(topic),
		brook.WithResetPosition(brook.Earliest))
	got := consumerPollN(t, c, 1, 60*time.Second)
	if len(got) != 1 || string(got[0].Key) != "k" || string(got[0].Value) != "v" {
		t.Fatalf("read %v, want one record k:v", got)
	}
	if hs := roundTripHeaders(got[0].Headers); hs != "trace=abc,trace=def" {
		t.Fatalf("headers %q, want trace=abc,trace=def", hs)
	}
}
