// Command goperf is the Go client's producer-perf-test: one Producer
// (idempotent, WRITTEN) sends N keyless records of random bytes as fast as it
// can to a new 3-partition topic, after warm-up records to another topic,
// measures each record from Produce to its promise, and prints a summary line
// like Kafka's kafka-producer-perf-test and a JSON line. perf/run-go-client.sh
// runs it beside the Java client's ClientPerf against the same broker.
package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

func main() {
	broker := flag.String("broker", "127.0.0.1:7070", "broker address")
	topic := flag.String("topic", fmt.Sprintf("goperf-%d", time.Now().UnixNano()), "topic to create and fill")
	size := flag.Int("record-size", 100, "value bytes per record")
	records := flag.Int("records", 1_000_000, "records to send (bounded)")
	warmup := flag.Int("warmup", 200_000, "records sent first to another topic")
	batch := flag.Int("batch-size", 16384, "WithBatchBytes")
	linger := flag.Duration("linger", 5*time.Millisecond, "WithLinger")
	partitions := flag.Int("partitions", 3, "partitions of the topics")
	flag.Parse()
	if *records < 1 || *records > 50_000_000 || *size < 0 || *size > 1<<20 {
		fail(fmt.Errorf("-records must be in [1, 50M] and -record-size in [0, 1 MiB]"))
	}

	ctx := context.Background()
	admin, err := brook.NewAdmin(brook.WithBroker(*broker))
	if err != nil {
		fail(err)
	}
	for _, t := range []string{*topic, *topic + "-warmup"} {
		if _, err := admin.CreateTopic(ctx, t, int32(*partitions), nil); err != nil {
			fail(err)
		}
	}
	_ = admin.Close(ctx)

	p, err := brook.NewProducer(brook.WithBroker(*broker), brook.WithBatchBytes(*batch), brook.WithLinger(*linger))
	if err != nil {
		fail(err)
	}
	value := make([]byte, *size)
	_, _ = rand.Read(value)
	if *warmup > 0 {
		if _, err := run(ctx, p, *topic+"-warmup", value, *warmup); err != nil {
			fail(err)
		}
	}
	res, err := run(ctx, p, *topic, value, *records)
	if err != nil {
		fail(err)
	}
	if err := p.Close(ctx); err != nil {
		fail(err)
	}

	secs := res.elapsed.Seconds()
	perSec := float64(*records) / secs
	mbPerSec := perSec * float64(*size) / (1 << 20)
	ms := func(q float64) float64 { return float64(res.latency(q).Microseconds()) / 1000 }
	fmt.Printf("%d records sent, %.1f records/sec (%.2f MB/sec), %.2f ms p50 latency, %.2f ms p99 latency, %.2f ms max latency.\n",
		*records, perSec, mbPerSec, ms(0.50), ms(0.99), ms(1))
	line, _ := json.Marshal(map[string]any{
		"client": "go", "records": *records, "record_size": *size, "batch_size": *batch,
		"linger_ms": linger.Milliseconds(), "partitions": *partitions, "seconds": round(secs, 3),
		"records_per_s": int64(perSec), "mb_per_s": round(mbPerSec, 2),
		"p50_ms": ms(0.50), "p99_ms": ms(0.99), "max_ms": ms(1),
	})
	fmt.Println(string(line))
}

type result struct {
	elapsed   time.Duration
	latencies []time.Duration
}

func (r result) latency(q float64) time.Duration {
	i := int(q * float64(len(r.latencies)-1))
	return r.latencies[i]
}

// run sends n records and waits for every answer.
func run(ctx context.Context, p *brook.Producer, topic string, value []byte, n int) (result, error) {
	latencies := make([]time.Duration, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	wg.Add(n)
	start := time.Now()
	for i := 0; i < n; i++ {
		sent := time.Now()
		p.Produce(ctx, &brook.Record{Topic: topic, Value: value}, func(_ *brook.Record, err error) {
			latencies[i] = time.Since(sent)
			if err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
			wg.Done()
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(latencies)
	return result{elapsed: elapsed, latencies: latencies}, firstErr
}

func round(v float64, digits int) float64 {
	f := math.Pow(10, float64(digits))
	return math.Round(v*f) / f
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "goperf:", err)
	os.Exit(1)
}
