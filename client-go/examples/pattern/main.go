// Command pattern reads every topic whose name matches a regular expression
// (WithTopicPattern): the broker matches it at every rebalance, so a matching
// topic created later is read too, without a restart.
//
//	go run ./examples/pattern -broker localhost:7070 -pattern 'orders-.*' -records 2
//
// With topics orders-eu and orders-us holding one record each (and refunds,
// which does not match), it prints (the records in either order):
//
//	read topic=orders-eu partition=0 offset=0 value=eu-0
//	read topic=orders-us partition=0 offset=0 value=us-0
//	subscribed to [orders-eu orders-us]
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
	pattern := flag.String("pattern", "orders-.*", "regular expression (Java syntax) over whole topic names")
	group := flag.String("group", "all-orders", "consumer group")
	want := flag.Int("records", 1, "records to read before stopping")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	c, err := brook.NewConsumer(brook.WithBroker(*broker), brook.WithGroup(*group),
		brook.WithTopicPattern(*pattern), brook.WithResetPosition(brook.Earliest))
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close(context.Background())

	for read := 0; read < *want; {
		records, err := c.Poll(ctx)
		if errors.Is(err, brook.ErrInvalidRequest) {
			log.Fatalf("the broker refused the pattern: %v", err) // it does not compile, or is too long
		} else if err != nil {
			log.Fatalf("poll: %v", err)
		}
		for _, r := range records {
			fmt.Printf("read topic=%s partition=%d offset=%d value=%s\n", r.Topic, r.Partition, r.Offset, r.Value)
			read++
		}
	}
	fmt.Printf("subscribed to %v\n", c.Subscription()) // what the pattern matched, sorted
}

// brokerAddress is $BROOK_BROKER (as for the brook CLI), else localhost:7070.
func brokerAddress() string {
	if addr := os.Getenv("BROOK_BROKER"); addr != "" {
		return addr
	}
	return "localhost:7070"
}
