// Command offsets shows what a Kafka user reaches for beside Poll: it lists
// a topic's partitions (PartitionsFor), reads the first one while the others
// are paused (Pause/Resume), and commits with metadata that it reads back
// (CommitOffsetsWithMetadata, CommittedWithMetadata).
//
//	go run ./examples/offsets -broker localhost:7070 -topic invoices -group invoicing
//
// It prints:
//
//	partition=0 end=2
//	partition=1 end=1
//	read partition=0 offset=0 value=inv-0
//	read partition=0 offset=1 value=inv-1
//	committed partition=0 offset=2 metadata=batch-17
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

func main() {
	broker := flag.String("broker", brokerAddress(), "broker address, host:port (default $BROOK_BROKER, else localhost:7070)")
	topic := flag.String("topic", "", "topic to read (at least two partitions)")
	group := flag.String("group", "example-offsets", "consumer group the commit goes to")
	flag.Parse()
	if *topic == "" {
		log.Fatal("-topic is required")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	c, err := brook.NewConsumer(brook.WithBroker(*broker), brook.WithGroup(*group),
		brook.WithResetPosition(brook.Earliest), brook.WithAutoCommit(false))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close(context.Background())

	partitions, err := c.PartitionsFor(ctx, *topic) // errors.Is(err, brook.ErrUnknownTopic) when absent
	if err != nil {
		log.Fatal(err)
	}
	var tps []brook.TopicPartition
	for _, p := range partitions {
		fmt.Printf("partition=%d end=%d\n", p.Partition, p.EndOffset)
		tps = append(tps, brook.TopicPartition{Topic: *topic, Partition: p.Partition})
	}
	if len(tps) < 2 {
		log.Fatalf("%s has %d partition(s); the example needs two", *topic, len(tps))
	}
	if err := c.Assign(tps...); err != nil {
		log.Fatal(err)
	}
	first := tps[0]
	// Every partition but the first waits (say, its downstream is busy): nothing of them is fetched.
	if err := c.Pause(tps[1:]...); err != nil {
		log.Fatal(err)
	}
	for read := int64(0); read < partitions[0].EndOffset; {
		records, err := c.Poll(ctx)
		if err != nil {
			log.Fatalf("poll: %v", err)
		}
		for _, r := range records {
			fmt.Printf("read partition=%d offset=%d value=%s\n", r.Partition, r.Offset, r.Value)
			read++
		}
	}

	// The next offset to read, with a note the group keeps beside it.
	next, err := c.Position(ctx, first)
	if err != nil {
		log.Fatal(err)
	}
	err = c.CommitOffsetsWithMetadata(ctx, map[brook.TopicPartition]brook.OffsetAndMetadata{
		first: {Offset: next, Metadata: "batch-17"},
	})
	if errors.Is(err, brook.ErrInvalidRequest) {
		log.Fatal("metadata over 4096 bytes") // the broker's limit, as Kafka's
	} else if err != nil {
		log.Fatal(err)
	}
	stored, err := c.CommittedWithMetadata(ctx, first)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("committed partition=%d offset=%d metadata=%s\n", first.Partition, stored[first].Offset, stored[first].Metadata)

	if err := c.Resume(); err != nil { // no partition given: every assigned one
		log.Fatal(err)
	}
}

// brokerAddress is $BROOK_BROKER (as for the brook CLI), else localhost:7070.
func brokerAddress() string {
	if addr := os.Getenv("BROOK_BROKER"); addr != "" {
		return addr
	}
	return "localhost:7070"
}
