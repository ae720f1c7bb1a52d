// Command cooperative shows cooperative (incremental) rebalancing: member a
// reads both partitions of a topic, then member b joins the group. a keeps
// partition 0 and goes on reading it while the group rebalances; only
// partition 1 is revoked from a (its callback commits it) before b gets it.
//
//	go run ./examples/cooperative -broker localhost:7070 -topic tickets -group support
//
// With a topic of two partitions it prints:
//
//	a assigned [0 1]
//	a revoked [1]
//	b assigned [1]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"sync"
	"time"

	"github.com/brook-io/brook/client-go/brook"
)

// member polls on its own goroutine, as an application does.
type member struct {
	mu    sync.Mutex
	owned map[int32]bool
}

var (
	printMu sync.Mutex
	quiet   bool // the example is over: closing moves partitions again, unprinted
)

// say prints one line; members print from their own goroutines.
func say(format string, args ...any) {
	printMu.Lock()
	defer printMu.Unlock()
	if !quiet {
		fmt.Printf(format+"\n", args...)
	}
}

func start(ctx context.Context, name, broker, group, topic string) (*member, *brook.Consumer) {
	m := &member{owned: map[int32]bool{}}
	var c *brook.Consumer
	c, err := brook.NewConsumer(brook.WithBroker(broker), brook.WithGroup(group), brook.WithTopics(topic),
		brook.WithResetPosition(brook.Earliest),
		brook.WithRebalanceProtocol(brook.RebalanceCooperative), // the opt-in
		brook.WithOnRevoked(func(ctx context.Context, tps []brook.TopicPartition) {
			// Only the partitions that move; the member still owns them, so this commit is stored.
			if err := c.CommitSync(ctx); err != nil {
				log.Print(err)
			}
			m.mu.Lock()
			for _, tp := range tps {
				delete(m.owned, tp.Partition)
			}
			m.mu.Unlock()
			say("%s revoked %v", name, partitions(tps))
		}),
		brook.WithOnAssigned(func(_ context.Context, tps []brook.TopicPartition) {
			if len(tps) == 0 {
				return // called after every rebalance, with the partitions added (here often none)
			}
			m.mu.Lock()
			for _, tp := range tps {
				m.owned[tp.Partition] = true
			}
			m.mu.Unlock()
			say("%s assigned %v", name, partitions(tps))
		}))
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		for ctx.Err() == nil {
			poll, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			_, _ = c.Poll(poll) // the records of the owned partitions keep coming during a rebalance
			cancel()
		}
	}()
	return m, c
}

func (m *member) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.owned)
}

func partitions(tps []brook.TopicPartition) []int32 {
	var out []int32
	for _, tp := range tps {
		out = append(out, tp.Partition)
	}
	return out
}

func await(what string, cond func() bool) {
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			log.Fatalf("not within 30 s: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func main() {
	broker := flag.String("broker", brokerAddress(), "broker address, host:port (default $BROOK_BROKER, else localhost:7070)")
	topic := flag.String("topic", "", "topic to read (two partitions)")
	group := flag.String("group", "example-cooperative", "consumer group")
	flag.Parse()
	if *topic == "" {
		log.Fatal("-topic is required")
	}
	ctx, stop := context.WithCancel(context.Background())
	a, ca := start(ctx, "a", *broker, *group, *topic)
	await("a owns both partitions", func() bool { return a.count() == 2 })
	b, cb := start(ctx, "b", *broker, *group, *topic)
	await("a and b own one each", func() bool { return a.count() == 1 && b.count() == 1 })
	printMu.Lock()
	quiet = true
	printMu.Unlock()
	stop()
	closeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = cb.Close(closeCtx)
	_ = ca.Close(closeCtx)
}

func brokerAddress() string {
	if addr := os.Getenv("BROOK_BROKER"); addr != "" {
		return addr
	}
	return "localhost:7070"
}
