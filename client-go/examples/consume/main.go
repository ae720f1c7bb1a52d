// Command consume reads records from a Brook topic as a member of an
// offset-mode consumer group, commits what it read, and stops after -n
// records or when -timeout runs out.
//
//	go run ./examples/consume -broker localhost:7070 -topic orders -group billing -n 6
//
// It prints one line per record:
//
//	consumed partition=1 offset=0 key=key-0 value=value-0 headers=source=example,seq=0
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

func main() {
	broker := flag.String("broker", brokerAddress(), "broker address, host:port (default $BROOK_BROKER, else localhost:7070)")
	topic := flag.String("topic", "", "topic to read")
	group := flag.String("group", "example-consume", "consumer group")
	n := flag.Int("n", 6, "stop after this many records")
	timeout := flag.Duration("timeout", 30*time.Second, "stop after this long")
	flag.Parse()
	if *topic == "" {
		log.Fatal("-topic is required")
	}

	// The first Poll joins the group. Partitions the group has no committed
	// offset for start at the earliest record (the default is the end).
	// Auto commit is off here to show explicit commits.
	c, err := brook.NewConsumer(
		brook.WithBroker(*broker),
		brook.WithGroup(*group),
		brook.WithTopics(*topic),
		brook.WithResetPosition(brook.Earliest),
		brook.WithAutoCommit(false),
	)
	if err != nil {
		log.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	count := 0
	for count < *n {
		// Poll waits for records until ctx ends.
		records, err := c.Poll(ctx)
		if errors.Is(err, context.DeadlineExceeded) {
			break // the timeout ran out
		}
		if err != nil {
			log.Fatalf("poll: %v", err)
		}
		// Poll returns up to WithMaxPollRecords (500) records: take what is wanted.
		if len(records) > *n-count {
			records = records[:*n-count]
		}
		for _, r := range records {
			fmt.Printf("consumed partition=%d offset=%d key=%s value=%s headers=%s\n",
				r.Partition, r.Offset, r.Key, r.Value, formatHeaders(r.Headers))
			count++
		}
		// Commit after the records processed (not the whole poll): a member that
		// takes these partitions over later, or the next run, starts there.
		if err := c.CommitRecords(ctx, records...); err != nil {
			log.Fatalf("commit: %v", err)
		}
	}

	// Close leaves the group (its partitions go to the other members at once).
	closeCtx, closeCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer closeCancel()
	if err := c.Close(closeCtx); err != nil {
		log.Printf("close: %v", err)
	}
	fmt.Printf("consumed %d records\n", count)
	if count < *n {
		log.Printf("timed out after %v with %d of %d records", *timeout, count, *n)
		os.Exit(1)
	}
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
