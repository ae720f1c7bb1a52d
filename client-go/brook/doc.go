// Package brook is the Go client of Brook, a single-node message broker with
// Kafka's data model served over gRPC.
//
// It has four clients, each made with functional options that are validated
// together when the client is made:
//
//   - [Producer]: goroutine-safe, asynchronous [Producer.Produce] with a
//     callback, and [Producer.ProduceSync]; batches per partition by size and
//     linger, pipelined over one produce stream, idempotent across reconnects.
//   - [Consumer]: a member of an offset-mode consumer group (or a reader of
//     assigned partitions): [Consumer.Poll], commits, seeks and rebalance
//     callbacks, with heartbeats in the background.
//   - [AckConsumer]: a member of an ack-mode group: every record is leased,
//     then acked, nacked (delivered again) or rejected (dead-lettered).
//   - [Admin]: topics and groups.
//
// Every blocking call takes a [context.Context] first. Errors the broker
// returns match the sentinel errors of this package with [errors.Is]
// (for example [ErrUnknownTopic]) and unwrap to a [*BrokerError] with
// [errors.As]. Close releases every goroutine a client started.
package brook
