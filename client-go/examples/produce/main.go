// Command produce writes a few records to a Brook topic with the Go client:
// half with ProduceSync (wait for each answer), half with the asynchronous
// Produce and a promise, then Flush. Every record has a key and headers.
//
//	go run ./examples/produce -broker localhost:7070 -topic orders -n 6
//
// It prints one line per record written:
//
//	produced partition=1 offset=0 key=key-0 value=value-0 headers=source=example,seq=0
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

func main() {
	broker := flag.String("broker", brokerAddress(), "broker address, host:port (default $BROOK_BROKER, else localhost:7070)")
	topic := flag.String("topic", "", "topic to write to (it must exist)")
	n := flag.Int("n", 6, "number of records")
	timeout := flag.Duration("timeout", 30*time.Second, "give up after this long")
	flag.Parse()
	if *topic == "" {
		log.Fatal("-topic is required")
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	// NewProducer checks the options and returns at once: it connects lazily.
	// WithLogger is where it reports a broken stream and its return (every
	// client takes it; default slog.Default()).
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	p, err := brook.NewProducer(brook.WithBroker(*broker), brook.WithLogger(logger))
	if err != nil {
		log.Fatal(err)
	}
	// Close sends what is still buffered and waits for the answers.
	defer func() {
		if err := p.Close(ctx); err != nil {
			log.Printf("close: %v", err)
		}
	}()

	records := make([]*brook.Record, *n)
	for i := range records {
		records[i] = &brook.Record{
			Topic: *topic,
			// A key picks the partition (Kafka's murmur2 partitioner), so
			// records of one key stay in order.
			Key:   []byte("key-" + strconv.Itoa(i)),
			Value: []byte("value-" + strconv.Itoa(i)),
			// Header names may repeat; their order is kept.
			Headers: []brook.Header{
				{Key: "source", Value: []byte("example")},
				{Key: "seq", Value: []byte(strconv.Itoa(i))},
			},
		}
	}
	half := len(records) / 2

	// 1. ProduceSync: produce a group of records and wait for all their answers.
	//    Each record gets its Partition and Offset set.
	results := p.ProduceSync(ctx, records[:half]...)
	if err := results.FirstErr(); err != nil {
		log.Fatalf("produce: %v", err)
	}
	for _, r := range results {
		printRecord(r.Record)
	}

	// 2. Produce: hand records over and go on; the promise is called once per
	//    record, from the producer's goroutine, when the broker has answered.
	var mu sync.Mutex
	var failed error
	for _, r := range records[half:] {
		p.Produce(ctx, r, func(r *brook.Record, err error) {
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed = err
				return
			}
			printRecord(r)
		})
	}
	// Flush sends the buffered records at once and waits for every answer.
	if err := p.Flush(ctx); err != nil {
		log.Fatalf("flush: %v", err)
	}
	if failed != nil {
		log.Printf("produce: %v", failed)
		os.Exit(1)
	}
}

func printRecord(r *brook.Record) {
	fmt.Printf("produced partition=%d offset=%d key=%s value=%s headers=%s\n",
		r.Partition, r.Offset, r.Key, r.Value, formatHeaders(r.Headers))
}

func formatHeaders(hs []brook.Header) string {
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = h.Key + "=" + string(h.Value)
	}
	return strings.Join(parts, ",")
}

// brokerAddress is $BROOK_BROKER (as for the brook CLI), else localhost:7070.
func brokerAddress() string {
	if addr := os.Getenv("BROOK_BROKER"); addr != "" {
		return addr
	}
	return "localhost:7070"
}
