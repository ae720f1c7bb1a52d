package brook

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// The Kafka record batch v2 (magic 2) the producer sends as
// ProduceBatch.kafka_batch (D49): a 61-byte big-endian header, then the
// records, compressed as a whole when the producer compresses. The broker
// stores the batch as it came; Kafka's consumers and Brook's readers read it.
const (
	kbBaseOffset      = 0
	kbBatchLength     = 8
	kbLeaderEpoch     = 12
	kbMagic           = 16
	kbCRC             = 17
	kbAttributes      = 21
	kbLastOffsetDelta = 23
	kbBaseTimestamp   = 27
	kbMaxTimestamp    = 35
	kbProducerID      = 43
	kbProducerEpoch   = 51
	kbBaseSequence    = 53
	kbRecordsCount    = 57
	kbHeaderSize      = 61
	kbLogOverhead     = 12 // base offset and batch length come before what the length counts
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// kafkaProducer is the idempotent producer's fields in the header; -1 for all
// three when the producer is not idempotent.
type kafkaProducer struct {
	id       int64
	epoch    int16
	sequence int32
}

var noKafkaProducer = kafkaProducer{id: -1, epoch: -1, sequence: -1}

// encodeKafkaBatch writes records as one Kafka record batch v2, its records
// compressed with c. Every record carries its timestamp: Produce stamps those
// without one.
func encodeKafkaBatch(records []pendingRecord, c Compression, p kafkaProducer) ([]byte, error) {
	base := records[0].rec.Timestamp.UnixMilli()
	maxTs := base
	body := make([]byte, 0, 64*len(records))
	for i, pr := range records {
		ts := pr.rec.Timestamp.UnixMilli()
		if ts > maxTs {
			maxTs = ts
		}
		body = appendKafkaRecord(body, pr.rec, ts-base, i)
	}
	out := make([]byte, kbHeaderSize, kbHeaderSize+len(body))
	var err error
	if out, err = c.compress(out, body); err != nil {
		return nil, err
	}
	be := binary.BigEndian
	be.PutUint64(out[kbBaseOffset:], 0) // the broker assigns the offsets
	be.PutUint32(out[kbBatchLength:], uint32(len(out)-kbLogOverhead))
	be.PutUint32(out[kbLeaderEpoch:], 0xffffffff) // -1, as a producer sends it
	out[kbMagic] = 2
	be.PutUint16(out[kbAttributes:], uint16(c)) // create time, not transactional, not control
	be.PutUint32(out[kbLastOffsetDelta:], uint32(len(records)-1))
	be.PutUint64(out[kbBaseTimestamp:], uint64(base))
	be.PutUint64(out[kbMaxTimestamp:], uint64(maxTs))
	be.PutUint64(out[kbProducerID:], uint64(p.id))
	be.PutUint16(out[kbProducerEpoch:], uint16(p.epoch))
	be.PutUint32(out[kbBaseSequence:], uint32(p.sequence))
	be.PutUint32(out[kbRecordsCount:], uint32(len(records)))
	be.PutUint32(out[kbCRC:], crc32.Checksum(out[kbAttributes:], castagnoli))
	return out, nil
}

// appendKafkaRecord appends one record as Kafka's DefaultRecord writes it: a
// zig-zag varint length, then attributes, timestamp delta, offset delta, key,
// value and headers, lengths as zig-zag varints (-1 for a null key).
func appendKafkaRecord(dst []byte, r *Record, tsDelta int64, offsetDelta int) []byte {
	var rec bytes.Buffer // small: a record's fields before its length is known
	var scratch [binary.MaxVarintLen64]byte
	put := func(v int64) { rec.Write(scratch[:binary.PutVarint(scratch[:], v)]) }
	rec.WriteByte(0) // record attributes: none defined
	put(tsDelta)
	put(int64(offsetDelta))
	if r.Key == nil {
		put(-1)
	} else {
		put(int64(len(r.Key)))
		rec.Write(r.Key)
	}
	put(int64(len(r.Value))) // a nil value is stored empty, as the records form stores it
	rec.Write(r.Value)
	put(int64(len(r.Headers)))
	for _, h := range r.Headers {
		put(int64(len(h.Key)))
		rec.WriteString(h.Key)
		put(int64(len(h.Value)))
		rec.Write(h.Value)
	}
	dst = binary.AppendVarint(dst, int64(rec.Len()))
	return append(dst, rec.Bytes()...)
}
