package brook

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"testing"
	"time"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// decodedRecord is what a Kafka batch holds for one record (a test's reading).
type decodedRecord struct {
	key     []byte // nil: no key
	value   string
	ts      int64
	headers []string
}

// decodeKafkaBatch reads a Kafka record batch v2 back, checking its header
// and CRC as a Kafka reader does (test-only: the producer never reads).
func decodeKafkaBatch(b []byte) (Compression, kafkaProducer, []decodedRecord, error) {
	be := binary.BigEndian
	if len(b) < kbHeaderSize || b[kbMagic] != 2 || int(be.Uint32(b[kbBatchLength:])) != len(b)-kbLogOverhead {
		return 0, kafkaProducer{}, nil, fmt.Errorf("bad header")
	}
	if crc32.Checksum(b[kbAttributes:], castagnoli) != be.Uint32(b[kbCRC:]) {
		return 0, kafkaProducer{}, nil, fmt.Errorf("bad CRC")
	}
	c := Compression(be.Uint16(b[kbAttributes:]) & 7)
	p := kafkaProducer{int64(be.Uint64(b[kbProducerID:])), int16(be.Uint16(b[kbProducerEpoch:])), int32(be.Uint32(b[kbBaseSequence:]))}
	base := int64(be.Uint64(b[kbBaseTimestamp:]))
	body, err := decompress(c, b[kbHeaderSize:])
	if err != nil {
		return 0, p, nil, err
	}
	r := bytes.NewReader(body)
	count := int(be.Uint32(b[kbRecordsCount:]))
	out := make([]decodedRecord, 0, count)
	bytesOf := func() []byte {
		n, _ := binary.ReadVarint(r)
		if n < 0 {
			return nil
		}
		v := make([]byte, n)
		io.ReadFull(r, v)
		return v
	}
	for i := 0; i < count; i++ {
		binary.ReadVarint(r) // length
		r.ReadByte()         // attributes
		tsDelta, _ := binary.ReadVarint(r)
		offsetDelta, _ := binary.ReadVarint(r)
		if offsetDelta != int64(i) {
			return c, p, nil, fmt.Errorf("record %d has offset delta %d", i, offsetDelta)
		}
		rec := decodedRecord{ts: base + tsDelta, key: bytesOf(), value: string(bytesOf())}
		n, _ := binary.ReadVarint(r)
		for h := int64(0); h < n; h++ {
			rec.headers = append(rec.headers, string(bytesOf())+"="+string(bytesOf()))
		}
		out = append(out, rec)
	}
	if r.Len() != 0 {
		return c, p, nil, fmt.Errorf("%d bytes after the records", r.Len())
	}
	return c, p, out, nil
}

func decompress(c Compression, b []byte) ([]byte, error) {
	switch c {
	case CompressionNone:
		return b, nil
	case CompressionGzip:
		r, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(r)
	case CompressionSnappy:
		if !bytes.HasPrefix(b, xerialHeader) {
			return nil, fmt.Errorf("no xerial header")
		}
		var out []byte
		for b = b[len(xerialHeader):]; len(b) > 0; {
			n := binary.BigEndian.Uint32(b)
			block, err := snappy.Decode(nil, b[4:4+n])
			if err != nil {
				return nil, err
			}
			out, b = append(out, block...), b[4+n:]
		}
		return out, nil
	case CompressionLZ4:
		return io.ReadAll(lz4.NewReader(bytes.NewReader(b)))
	case CompressionZstd:
		d, err := zstd.NewReader(nil)
		if err != nil {
			return nil, err
		}
		defer d.Close()
		return d.DecodeAll(b, nil)
	}
	return nil, fmt.Errorf("codec %d", c)
}

// batchValues are the values a produce batch carries, in either form (for the fake broker).
func batchValues(b *brookv1.ProduceBatch) []string {
	if len(b.GetKafkaBatch()) > 0 {
		_, _, records, err := decodeKafkaBatch(b.GetKafkaBatch())
		if err != nil {
			panic(err)
		}
		values := make([]string, len(records))
		for i, r := range records {
			values[i] = r.value
		}
		return values
	}
	values := make([]string, len(b.GetRecords()))
	for i, r := range b.GetRecords() {
		values[i] = string(r.GetValue())
	}
	return values
}

func TestKafkaBatchesRoundTripInEveryCodec(t *testing.T) {
	t0 := time.UnixMilli(1_700_000_000_000)
	big := bytes.Repeat([]byte("compressible "), 10_000) // more than one snappy and lz4 block
	records := []pendingRecord{
		{rec: &Record{Key: []byte("k"), Value: []byte("v"), Timestamp: t0}},
		{rec: &Record{Value: []byte("no key"), Timestamp: t0.Add(-5 * time.Millisecond),
			Headers: []Header{{Key: "h", Value: []byte("1")}, {Key: "h"}, {Key: "été", Value: []byte("x")}}}},
		{rec: &Record{Key: []byte{}, Timestamp: t0.Add(time.Hour)}},
		{rec: &Record{Value: big, Timestamp: t0}},
	}
	for _, c := range []Compression{CompressionNone, CompressionGzip, CompressionSnappy, CompressionLZ4, CompressionZstd} {
		t.Run(c.String(), func(t *testing.T) {
			b, err := encodeKafkaBatch(records, c, kafkaProducer{id: 9_000_000_000, epoch: 3, sequence: 2_147_483_000})
			if err != nil {
				t.Fatal(err)
			}
			gotC, p, got, err := decodeKafkaBatch(b)
			if err != nil {
				t.Fatal(err)
			}
			if gotC != c || p != (kafkaProducer{9_000_000_000, 3, 2_147_483_000}) || len(got) != 4 {
				t.Fatalf("codec %v producer %+v, %d records", gotC, p, len(got))
			}
			if c != CompressionNone && len(b) > len(big)/2 {
				t.Errorf("%v: %d bytes, not compressed", c, len(b))
			}
			want := []string{"k|v|1700000000000|[]", "<nil>|no key|1699999999995|[h=1 h= été=x]", "||1700003600000|[]"}
			for i, w := range want {
				key := "<nil>"
				if got[i].key != nil {
					key = string(got[i].key)
				}
				if s := fmt.Sprintf("%s|%s|%d|%v", key, got[i].value, got[i].ts, got[i].headers); s != w {
					t.Errorf("record %d = %s, want %s", i, s, w)
				}
			}
			if got[3].value != string(big) {
				t.Errorf("the large value differs")
			}
		})
	}
}
