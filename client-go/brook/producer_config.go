package brook

import "time"

// producerConfig is NewProducer's configuration. The defaults are Kafka's
// producer defaults where Kafka has the same setting.
type producerConfig struct {
	conn              connConfig
	batchBytes        int
	linger            time.Duration
	maxBufferedBytes  int64
	maxBlock          time.Duration
	deliveryTimeout   time.Duration
	requestTimeout    time.Duration
	maxRequestBytes   int
	maxInFlight       int
	idempotent        bool
	durability        Durability
	manualPartitioner bool
	backoffMin        time.Duration
	backoffMax        time.Duration
	metadataMaxAge    time.Duration
	compression       Compression
}

func defaultProducerConfig() producerConfig {
	return producerConfig{
		conn:             defaultConnConfig(),
		batchBytes:       16 << 10,
		linger:           5 * time.Millisecond,
		maxBufferedBytes: 32 << 20,
		maxBlock:         60 * time.Second,
		deliveryTimeout:  2 * time.Minute,
		requestTimeout:   30 * time.Second,
		maxRequestBytes:  1 << 20,
		maxInFlight:      5,
		idempotent:       true,
		durability:       DurabilityWritten,
		backoffMin:       100 * time.Millisecond,
		backoffMax:       time.Second,
		metadataMaxAge:   5 * time.Minute,
	}
}

func (c *producerConfig) validate() error {
	var p problems
	c.conn.validate(&p)
	p.positive("WithBatchBytes", int64(c.batchBytes))
	p.duration("WithLinger", c.linger, 0, time.Hour)
	if c.maxBufferedBytes < 1024 {
		p.add("WithMaxBufferedBytes(%d): at least 1024", c.maxBufferedBytes)
	}
	p.duration("WithMaxBlock", c.maxBlock, 0, maxDuration)
	p.duration("WithRequestTimeout", c.requestTimeout, time.Millisecond, maxDuration)
	p.duration("WithDeliveryTimeout", c.deliveryTimeout, time.Millisecond, maxDuration)
	if c.deliveryTimeout < c.linger+c.requestTimeout {
		p.add("WithDeliveryTimeout(%v): at least linger + request timeout (%v)", c.deliveryTimeout, c.linger+c.requestTimeout)
	}
	if c.maxRequestBytes < 1024 {
		p.add("WithMaxRequestBytes(%d): at least 1024", c.maxRequestBytes)
	}
	if c.maxInFlight < 1 || (c.idempotent && c.maxInFlight > 5) {
		p.add("WithMaxInFlightPerPartition(%d): must be in [1, 5] for an idempotent producer (at least 1 otherwise)", c.maxInFlight)
	}
	if c.durability != DurabilityWritten && c.durability != DurabilitySynced {
		p.add("WithDurability(%d): DurabilityWritten or DurabilitySynced", c.durability)
	}
	if !c.compression.valid() {
		p.add("WithCompression(%d): CompressionNone, CompressionGzip, CompressionSnappy, CompressionLZ4 or CompressionZstd", int8(c.compression))
	}
	retryBackoffProblems(&p, c.backoffMin, c.backoffMax)
	return p.err("producer")
}

// producerOption sets a producer-only option.
type producerOption func(*producerConfig)

func (o producerOption) applyProducer(c *producerConfig) { o(c) }

// WithBatchBytes is the most record bytes one partition's batch holds
// (Kafka's batch.size; default 16 KiB). A larger record is sent alone.
func WithBatchBytes(n int) ProducerOption {
	return producerOption(func(c *producerConfig) { c.batchBytes = n })
}

// WithLinger is how long a batch that is not full waits for more records
// (Kafka's linger.ms; default 5ms; 0 sends as soon as the sender is free).
func WithLinger(d time.Duration) ProducerOption {
	return producerOption(func(c *producerConfig) { c.linger = d })
}

// WithMaxBufferedBytes bounds the record bytes held by the producer and not
// yet acknowledged (Kafka's buffer.memory; default 32 MiB).
func WithMaxBufferedBytes(n int64) ProducerOption {
	return producerOption(func(c *producerConfig) { c.maxBufferedBytes = n })
}

// WithMaxBlock is how long Produce waits for buffer space and for the
// topic's partition count before the record fails with ErrBufferFull or the
// metadata error (Kafka's max.block.ms; default 60s). Produce's context can end the wait sooner.
func WithMaxBlock(d time.Duration) ProducerOption {
	return producerOption(func(c *producerConfig) { c.maxBlock = d })
}

// WithDeliveryTimeout bounds the time from Produce to the record's answer,
// retries included (Kafka's delivery.timeout.ms; default 2m).
func WithDeliveryTimeout(d time.Duration) ProducerOption {
	return producerOption(func(c *producerConfig) { c.deliveryTimeout = d })
}

// WithMaxRequestBytes bounds one produce request, all its batches together
// (default 1 MiB; the broker refuses requests over its max.request.bytes, 8 MiB by default).
func WithMaxRequestBytes(n int) ProducerOption {
	return producerOption(func(c *producerConfig) { c.maxRequestBytes = n })
}

// WithMaxInFlightPerPartition is how many batches of one partition may wait
// for their answers at once (default 5, at most 5 when idempotent).
func WithMaxInFlightPerPartition(n int) ProducerOption {
	return producerOption(func(c *producerConfig) { c.maxInFlight = n })
}

// WithIdempotence(false) makes a plain producer: a batch retried after a lost
// answer may be written twice. By default the producer is idempotent.
func WithIdempotence(on bool) ProducerOption {
	return producerOption(func(c *producerConfig) { c.idempotent = on })
}

// WithDurability is how durable a record must be before it is acknowledged
// (default DurabilityWritten).
func WithDurability(d Durability) ProducerOption {
	return producerOption(func(c *producerConfig) { c.durability = d })
}

// WithManualPartitioner makes the producer write each record to its
// Record.Partition instead of choosing one.
func WithManualPartitioner() ProducerOption {
	return producerOption(func(c *producerConfig) { c.manualPartitioner = true })
}

// WithCompression compresses each batch's records (Kafka's compression.type;
// default CompressionNone): gzip, snappy, lz4 or zstd, as Kafka's producer
// writes them. The broker stores the batch compressed, as it came, and every
// Brook reader and Kafka consumer reads it. WithBatchBytes counts bytes before
// compression. A broker older than compressed batches fails such records.
func WithCompression(c Compression) ProducerOption {
	return producerOption(func(c2 *producerConfig) { c2.compression = c })
}
