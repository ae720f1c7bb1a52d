// Command static runs a static group member (WithGroupInstanceID) twice, as
// a process that restarts: the second run takes the first's place in the
// group with the same partitions and the same generation, without a
// rebalance, and goes on from what the first committed.
//
//	go run ./examples/static -broker localhost:7070 -topic tasks -group billing
//
// With two partitions holding three records it prints:
//
//	run 1: partitions [0 1], generation 1, 3 records
//	run 2: partitions [0 1], generation 1, 0 records
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

func main() {
	broker := flag.String("broker", brokerAddress(), "broker address, host:port (default $BROOK_BROKER, else localhost:7070)")
	topic := flag.String("topic", "", "topic to read")
	group := flag.String("group", "example-static", "consumer group")
	flag.Parse()
	if *topic == "" {
		log.Fatal("-topic is required")
	}
	for run := 1; run <= 2; run++ {
		if err := consume(run, *broker, *topic, *group); err != nil {
			log.Fatalf("run %d: %v", run, err)
		}
	}
}

func consume(run int, broker, topic, group string) error {
	c, err := brook.NewConsumer(brook.WithBroker(broker), brook.WithGroup(group), brook.WithTopics(topic),
		brook.WithGroupInstanceID("billing-host-1"), // stable across restarts, e.g. the host or pod name
		brook.WithSessionTimeout(30*time.Second),    // a restart within it moves no partition
		brook.WithResetPosition(brook.Earliest))
	if err != nil {
		return err
	}
	// Close commits (auto commit) but does not leave: the group keeps the member for the next run.
	defer c.Close(context.Background())
	read := 0
	deadline := time.Now().Add(30 * time.Second)
	for polls := 0; polls < 5; {
		if time.Now().After(deadline) {
			return errors.New("no partitions within 30s")
		}
		if len(c.Assignment()) > 0 { // five polls once the group answered
			polls++
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		records, err := c.Poll(ctx)
		cancel()
		switch {
		case errors.Is(err, brook.ErrMemberReplaced):
			return fmt.Errorf("another consumer runs with this instance id: %w", err)
		case err != nil && !errors.Is(err, context.DeadlineExceeded):
			return err
		}
		read += len(records)
	}
	var partitions []int32
	for _, tp := range c.Assignment() {
		partitions = append(partitions, tp.Partition)
	}
	slices.Sort(partitions)
	fmt.Printf("run %d: partitions %v, generation %d, %d records\n", run, partitions, c.GroupMetadata().Generation, read)
	return nil
}

// brokerAddress is $BROOK_BROKER (as for the brook CLI), else localhost:7070.
func brokerAddress() string {
	if addr := os.Getenv("BROOK_BROKER"); addr != "" {
		return addr
	}
	return "localhost:7070"
}
