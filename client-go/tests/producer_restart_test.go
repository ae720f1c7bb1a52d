package tests

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// The broker restarts while records are in flight: every record is written
// exactly once (the batches resent on the new stream keep their sequence
// numbers, and the broker drops the ones it had written), in order.
func TestBrokerRestartLosesAndDuplicatesNothing(t *testing.T) {
	b := startBroker(t)
	topic := b.createTopic(t, 2, nil)
	check := leakCheck(t)
	p, err := brook.NewProducer(brook.WithBroker(b.Addr()), brook.WithLinger(time.Millisecond),
		brook.WithBatchBytes(512), brook.WithRetryBackoff(50*time.Millisecond, time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t, 120*time.Second)
	const total = 4000
	var mu sync.Mutex
	var failures []error
	var wg sync.WaitGroup
	wg.Add(total)
	restarted := make(chan struct{})
	go func() {
		defer close(restarted)
		time.Sleep(300 * time.Millisecond)
		b.Restart()
	}()
	for i := 0; i < total; i++ {
		if i == total/2 {
			<-restarted // the second half is produced after the broker is back
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
		if i%200 == 0 {
			time.Sleep(20 * time.Millisecond) // spread the first half over the restart
		}
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d records failed, first: %v", len(failures), failures[0])
	}
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	check()
	seen := map[int]bool{}
	for partition := int32(0); partition < 2; partition++ {
		last := map[string]int{}
		for _, r := range b.fetchAll(t, topic, partition) {
			v, _ := strconv.Atoi(string(r.GetValue()))
			if seen[v] {
				t.Fatalf("record %d written twice", v)
			}
			seen[v] = true
			if prev, ok := last[string(r.GetKey())]; ok && v < prev {
				t.Fatalf("key %s: %d stored after %d", r.GetKey(), v, prev)
			}
			last[string(r.GetKey())] = v
		}
	}
	if len(seen) != total {
		var missing []int
		for i := 0; i < total && len(missing) < 10; i++ {
			if !seen[i] {
				missing = append(missing, i)
			}
		}
		sort.Ints(missing)
		t.Fatalf("%d of %d records stored; missing e.g. %v", len(seen), total, missing)
	}
}

// With the broker gone, Close's context bounds the wait: what is left fails
// with ErrClientClosed and no goroutine is left behind.
func TestCloseWithTheBrokerDownFailsWhatIsLeft(t *testing.T) {
	b := startBroker(t)
	topic := b.createTopic(t, 1, nil)
	check := leakCheck(t)
	p, err := brook.NewProducer(brook.WithBroker(b.Addr()), brook.WithRetryBackoff(20*time.Millisecond, time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t, 60*time.Second)
	if err := p.ProduceSync(ctx, &brook.Record{Topic: topic, Value: []byte("warm")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	b.Kill()
	results := make(chan error, 1)
	p.Produce(ctx, &brook.Record{Topic: topic, Value: []byte("lost")}, func(_ *brook.Record, err error) { results <- err })
	closeCtx, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	if err := p.Close(closeCtx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close: %v", err)
	}
	if err := <-results; !errors.Is(err, brook.ErrClientClosed) {
		t.Fatalf("the record left: %v", err)
	}
	var after error
	p.Produce(ctx, &brook.Record{Topic: topic, Value: []byte("x")}, func(_ *brook.Record, err error) { after = err })
	if !errors.Is(after, brook.ErrClientClosed) {
		t.Fatalf("Produce after Close: %v", after)
	}
	check()
}

// A full buffer: Produce waits at most WithMaxBlock, then ErrBufferFull.
func TestFullBufferFailsWithErrBufferFull(t *testing.T) {
	b := startBroker(t)
	topic := b.createTopic(t, 1, nil)
	p := newProducer(t, b, brook.WithMaxBufferedBytes(4096), brook.WithMaxBlock(200*time.Millisecond),
		brook.WithDeliveryTimeout(time.Minute))
	ctx := testCtx(t, 60*time.Second)
	if err := p.ProduceSync(ctx, &brook.Record{Topic: topic, Value: []byte("warm")}).FirstErr(); err != nil {
		t.Fatal(err) // the partition count is cached now
	}
	b.Kill() // nothing is answered any more, so nothing leaves the buffer
	var full error
	for i := 0; i < 100 && full == nil; i++ {
		done := make(chan error, 1)
		p.Produce(ctx, &brook.Record{Topic: topic, Value: make([]byte, 1000)}, func(_ *brook.Record, err error) {
			select {
			case done <- err:
			default:
			}
		})
		select {
		case err := <-done:
			full = err
		default:
		}
	}
	if !errors.Is(full, brook.ErrBufferFull) {
		t.Fatalf("got %v, want ErrBufferFull", full)
	}
	// The caller's context ends the wait too, and says so.
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	var err error
	p.Produce(short, &brook.Record{Topic: topic, Value: make([]byte, 1000)}, func(_ *brook.Record, e error) { err = e })
	if !errors.Is(err, brook.ErrBufferFull) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	closeCtx, cancelClose := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancelClose()
	_ = p.Close(closeCtx) // the buffered records fail with ErrClientClosed
}

// Flush sends records without waiting for linger; synced durability works the same way.
func TestFlushSendsDespiteALongLinger(t *testing.T) {
	b := sharedBroker
	topic := b.createTopic(t, 1, nil)
	p := newProducer(t, b, brook.WithLinger(time.Hour), brook.WithDeliveryTimeout(2*time.Hour),
		brook.WithDurability(brook.DurabilitySynced))
	ctx := testCtx(t, 30*time.Second)
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		p.Produce(ctx, &brook.Record{Topic: topic, Value: []byte(fmt.Sprint(i))}, func(_ *brook.Record, err error) {
			if err != nil {
				t.Error(err)
			}
			wg.Done()
		})
	}
	if err := p.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if got := len(b.fetchAll(t, topic, 0)); got != 10 {
		t.Fatalf("%d records stored after Flush", got)
	}
}
