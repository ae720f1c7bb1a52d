package tests

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/brook-io/brook/client-go/brook"
	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

var recoveredLine = regexp.MustCompile(`Recovered (\d+) topics, \d+ partitions, \d+ records in (\d+) ms`)

// While a restarted broker recovers its storage it answers every call
// UNAVAILABLE "the broker is recovering storage"; with many topics that
// lasts long enough for the producer's stream to be refused again and again.
// Those refusals are no fault of the requests: the producer retries them
// until the delivery timeout, and every record in flight across the restart
// is written once, none failed.
func TestProducerRidesThroughStorageRecovery(t *testing.T) {
	b := startBroker(t)
	b.withRawConn(t, func(cc *grpc.ClientConn) { createManyTopics(t, cc, 600) })
	topic := b.createTopic(t, 2, nil)
	logs, logger := newLogCapture()
	p := newProducer(t, b, brook.WithLogger(logger), brook.WithLinger(time.Millisecond),
		brook.WithRetryBackoff(10*time.Millisecond, 50*time.Millisecond))
	ctx := testCtx(t, 3*time.Minute)
	if err := p.ProduceSync(ctx, &brook.Record{Topic: topic, Value: []byte("warm")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	const total = 2000
	var mu sync.Mutex
	var failures []error
	var wg sync.WaitGroup
	wg.Add(total)
	restarted := make(chan struct{})
	go func() {
		defer close(restarted)
		b.Restart()
	}()
	for i := 0; i < total; i++ {
		if i == total/2 {
			<-restarted
		}
		p.Produce(ctx, &brook.Record{Topic: topic, Key: []byte(strconv.Itoa(i % 10)), Value: []byte(strconv.Itoa(i))},
			func(_ *brook.Record, err error) {
				if err != nil {
					mu.Lock()
					failures = append(failures, err)
					mu.Unlock()
				}
				wg.Done()
			})
		if i < total/2 {
			time.Sleep(5 * time.Millisecond) // the first half spreads over the stop and the recovery
		}
	}
	wg.Wait()
	m := recoveredLine.FindStringSubmatch(b.currentLog())
	t.Logf("broker: %s", m[0])
	if len(failures) > 0 {
		t.Fatalf("%d of %d records failed, first: %v", len(failures), total, failures[0])
	}
	if len(logs.lines("recovering storage")) == 0 {
		t.Fatalf("the producer never met the broker recovering its storage (recovery too quick to test?); its log:\n%s", logs)
	}
	seen := map[string]bool{}
	for partition := int32(0); partition < 2; partition++ {
		for _, r := range b.fetchAll(t, topic, partition) {
			v := string(r.GetValue())
			if seen[v] {
				t.Fatalf("record %s written twice", v)
			}
			seen[v] = true
		}
	}
	if len(seen) != total+1 {
		t.Fatalf("%d records stored, want %d", len(seen), total+1)
	}
}

// createManyTopics makes n one-partition topics on one connection.
func createManyTopics(t *testing.T, cc *grpc.ClientConn, n int) {
	t.Helper()
	admin := brookv1.NewAdminServiceClient(cc)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prefix := uniqueName(t, "many")
	for i := 0; i < n; i++ {
		if _, err := admin.CreateTopic(ctx, &brookv1.CreateTopicRequest{Name: fmt.Sprintf("%s-%d", prefix, i), Partitions: 1}); err != nil {
			t.Fatalf("create topic %d: %v", i, err)
		}
	}
}
