package brook

import (
	"time"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// Header is a record header: a name and a byte value. A record may carry
// several headers with the same key; their order is kept.
type Header struct {
	Key   string
	Value []byte
}

// Record is a record as produced and as consumed.
type Record struct {
	Topic string
	// Partition is where the record was written. On produce it is set by the
	// partitioner, unless the producer was made WithManualPartitioner.
	Partition int32
	// Key nil: no key (keyless records are spread over the partitions).
	// Key empty but not nil: the empty key, hashed like any other.
	Key     []byte
	Value   []byte
	Headers []Header
	// Timestamp zero on produce: the producer's clock when Produce is called
	// (the topic's LogAppendTime, when it has one, replaces it).
	Timestamp time.Time
	// Offset is set when the record was written (on produce, by the broker's answer).
	Offset int64
}

// TopicPartition names one partition of a topic.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// Durability is how durable a produce must be before the broker answers.
type Durability int

const (
	// DurabilityWritten: written to the memory-mapped log; survives a crash of the broker process.
	DurabilityWritten Durability = iota + 1
	// DurabilitySynced: forced to the device before the answer; survives power loss.
	DurabilitySynced
)

func (d Durability) proto() brookv1.Durability {
	if d == DurabilitySynced {
		return brookv1.Durability_DURABILITY_SYNCED
	}
	return brookv1.Durability_DURABILITY_WRITTEN
}

// fromProtoRecord converts a fetched or received record.
func fromProtoRecord(topic string, partition int32, r *brookv1.Record) *Record {
	out := &Record{
		Topic:     topic,
		Partition: partition,
		Key:       r.Key,
		Value:     r.GetValue(),
		Offset:    r.GetOffset(),
		Timestamp: time.UnixMilli(r.GetTimestampMs()),
	}
	if out.Value == nil {
		out.Value = []byte{}
	}
	if n := len(r.GetHeaders()); n > 0 {
		out.Headers = make([]Header, n)
		for i, h := range r.GetHeaders() {
			out.Headers[i] = Header{Key: h.GetKey(), Value: h.GetValue()}
		}
	}
	return out
}
