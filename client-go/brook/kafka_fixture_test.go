package brook

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fixtureDir holds one Go-written Kafka batch per codec, which the protocol
// module's GoKafkaBatchesTest reads with Java's BatchReader and with
// kafka-clients, so the Go and Java implementations are held to agree.
const fixtureDir = "../../protocol/src/test/resources/io/brook/protocol/batch/go"

// fixtureRecords are the records of each fixture batch; GoKafkaBatchesTest expects exactly these.
func fixtureRecords() []pendingRecord {
	t0 := time.UnixMilli(1_700_000_000_000)
	return []pendingRecord{
		{rec: &Record{Key: []byte("k"), Value: []byte("v"), Timestamp: t0}},
		{rec: &Record{Value: []byte("no key"), Timestamp: t0.Add(-5 * time.Millisecond),
			Headers: []Header{{Key: "h", Value: []byte("1")}, {Key: "h"}, {Key: "été", Value: []byte("x")}}}},
		{rec: &Record{Key: []byte{}, Timestamp: t0.Add(time.Hour)}},
		// More than one snappy block (32 KiB), so the xerial framing's blocks are read in turn.
		{rec: &Record{Key: []byte("big"), Value: bytes.Repeat([]byte("compressible "), 3200), Timestamp: t0}},
	}
}

var fixtureCodecs = []Compression{CompressionNone, CompressionGzip, CompressionSnappy, CompressionLZ4, CompressionZstd}

// BROOK_WRITE_GO_FIXTURES=1 go test -run TestGoKafkaBatchFixtures ./brook writes them
// again; otherwise the committed ones must read back as fixtureRecords.
func TestGoKafkaBatchFixtures(t *testing.T) {
	producer := kafkaProducer{id: 4242, epoch: 7, sequence: 100}
	for _, c := range fixtureCodecs {
		path := filepath.Join(fixtureDir, c.String()+".kafka")
		if os.Getenv("BROOK_WRITE_GO_FIXTURES") != "" {
			b, err := encodeKafkaBatch(fixtureRecords(), c, producer)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(fixtureDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		gotC, p, records, err := decodeKafkaBatch(b)
		if err != nil || gotC != c || p != producer || len(records) != len(fixtureRecords()) {
			t.Fatalf("%s: codec %v producer %+v, %d records, %v", path, gotC, p, len(records), err)
		}
		for i, want := range fixtureRecords() {
			if records[i].value != string(want.rec.Value) || records[i].ts != want.rec.Timestamp.UnixMilli() {
				t.Fatalf("%s record %d differs", path, i)
			}
		}
	}
}
