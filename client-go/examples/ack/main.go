// Command ack reads records from a Brook topic as a member of an ack-mode
// group: each record is leased to it, then acked one by one. To show a
// redelivery, the first record received is nacked once: the broker delivers
// it again at once, with DeliveryAttempt 2. It stops after -n records are
// acked or when -timeout runs out.
//
//	go run ./examples/ack -broker localhost:7070 -topic orders -group workers -n 6
//
// It prints one line per delivery:
//
//	received partition=1 offset=0 attempt=1 key=key-0 value=value-0 -> nack
//	received partition=1 offset=0 attempt=2 key=key-0 value=value-0 -> ack
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
	topic := flag.String("topic", "", "topic to read")
	group := flag.String("group", "example-ack", "ack-mode group")
	n := flag.Int("n", 6, "stop once this many records are acked and the nacked one came back")
	timeout := flag.Duration("timeout", 30*time.Second, "stop after this long")
	flag.Parse()
	if *topic == "" {
		log.Fatal("-topic is required")
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	// An AckConsumer creates a missing group itself, but such a group starts at
	// the end of its topics. Create it first with the Admin to start at the
	// beginning; it may exist already (from an earlier run).
	admin, err := brook.NewAdmin(brook.WithBroker(*broker))
	if err != nil {
		log.Fatal(err)
	}
	_, err = admin.CreateGroup(ctx, *group, brook.GroupModeAck, map[string]string{"auto.offset.reset": "earliest"})
	_ = admin.Close(ctx)
	if err != nil && !errors.Is(err, brook.ErrGroupExists) {
		log.Fatalf("create group: %v", err)
	}

	// Flow control: at most n records leased to this member at a time, so a
	// run takes few more than it acks. Each leased record must be settled (or
	// its lease extended) before the lease runs out, or it is delivered again.
	c, err := brook.NewAckConsumer(brook.WithBroker(*broker), brook.WithGroup(*group), brook.WithTopics(*topic),
		brook.WithMaxOutstandingRecords(int64(*n)))
	if err != nil {
		log.Fatal(err)
	}

	var nacked *brook.AckRecord // the record handed back once, to show a redelivery
	redelivered := false
	acked := 0
	for acked < *n || (nacked != nil && !redelivered) {
		// Poll waits for leased records until ctx ends.
		records, err := c.Poll(ctx)
		if errors.Is(err, context.DeadlineExceeded) {
			break
		}
		if err != nil {
			log.Fatalf("poll: %v", err)
		}
		for _, r := range records {
			var action string
			switch {
			case nacked == nil:
				// Hand it back: it is delivered again at once (a delay may be given).
				nacked, action, err = r, "nack", c.Nack(r, 0)
			case r.Topic == nacked.Topic && r.Partition == nacked.Partition && r.Offset == nacked.Offset:
				redelivered = true
				acked++
				action, err = "ack", c.Ack(r)
			default:
				// Done with it: never delivered again.
				acked++
				action, err = "ack", c.Ack(r)
			}
			if err != nil {
				log.Fatalf("%s: %v", action, err)
			}
			fmt.Printf("received partition=%d offset=%d attempt=%d key=%s value=%s -> %s\n",
				r.Partition, r.Offset, r.DeliveryAttempt, r.Key, r.Value, action)
		}
	}

	// Settles are sent in batches in the background; Flush sends what is
	// waiting now and says which ones the broker refused. Close would send
	// them too, and hands back records received but not yet polled.
	closeCtx, closeCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer closeCancel()
	if err := c.Flush(closeCtx); err != nil {
		log.Printf("flush: %v", err)
	}
	if err := c.Close(closeCtx); err != nil {
		log.Printf("close: %v", err)
	}
	fmt.Printf("acked %d records\n", acked)
	if acked < *n {
		log.Printf("timed out after %v with %d of %d records acked", *timeout, acked, *n)
		os.Exit(1)
	}
}

// brokerAddress is $BROOK_BROKER (as for the brook CLI), else localhost:7070.
func brokerAddress() string {
	if addr := os.Getenv("BROOK_BROKER"); addr != "" {
		return addr
	}
	return "localhost:7070"
}
