package tests

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/brook-io/brook/client-go/brook"
	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
	"google.golang.org/grpc"
)

// Every codec of WithCompression against the real broker: the records come
// back (records fetch, decoded by the broker) with their keys, headers and
// timestamps, and the broker stored each batch as the producer sent it,
// compressed with that codec (raw fetch of stored version 2 batches).
func TestEveryCompressionRoundTripsThroughTheBroker(t *testing.T) {
	b := sharedBroker
	codecs := []brook.Compression{brook.CompressionNone, brook.CompressionGzip, brook.CompressionSnappy,
		brook.CompressionLZ4, brook.CompressionZstd}
	for _, c := range codecs {
		t.Run(c.String(), func(t *testing.T) {
			topic := b.createTopic(t, 1, nil)
			p := newProducer(t, b, brook.WithCompression(c), brook.WithLinger(20*time.Millisecond))
			ctx := testCtx(t, 60*time.Second)
			t0 := time.UnixMilli(1_700_000_000_000)
			var records []*brook.Record
			for i := 0; i < 300; i++ {
				r := &brook.Record{Topic: topic, Value: []byte(fmt.Sprintf("a repetitive value, compressible, number %d", i)),
					Timestamp: t0.Add(time.Duration(i) * time.Millisecond)}
				if i%4 != 0 {
					r.Key = []byte(fmt.Sprintf("key-%d", i))
				}
				if i%3 != 0 {
					r.Headers = []brook.Header{{Key: "n", Value: []byte(fmt.Sprint(i))}, {Key: "n"}}
				}
				records = append(records, r)
			}
			if err := p.ProduceSync(ctx, records...).FirstErr(); err != nil {
				t.Fatal(err)
			}
			if c != brook.CompressionNone && p.Stats().BytesSent >= 300*40 {
				t.Errorf("BytesSent %d: not the compressed batches", p.Stats().BytesSent)
			}
			stored := b.fetchAll(t, topic, 0)
			if len(stored) != 300 {
				t.Fatalf("%d records stored", len(stored))
			}
			for i, r := range stored {
				want := records[i]
				if r.GetOffset() != int64(i) || string(r.GetValue()) != string(want.Value) ||
					r.GetTimestampMs() != want.Timestamp.UnixMilli() || (r.Key != nil) != (want.Key != nil) ||
					string(r.GetKey()) != string(want.Key) || len(r.GetHeaders()) != len(want.Headers) {
					t.Fatalf("record %d: %v, want %+v", i, r, want)
				}
				for h, hh := range r.GetHeaders() {
					if hh.GetKey() != want.Headers[h].Key || string(hh.GetValue()) != string(want.Headers[h].Value) {
						t.Fatalf("record %d header %d: %v", i, h, hh)
					}
				}
			}
			for _, batch := range rawBatches(t, b, topic) {
				const prefix, attributes = 26, 21 // Brook's version 2 prefix, then Kafka's header
				if batch[0] != 2 || brook.Compression(batch[prefix+attributes+1]&7) != c {
					t.Fatalf("stored batch version %d, codec %d", batch[0], batch[prefix+attributes+1]&7)
				}
			}
		})
	}
}

// rawBatches are the partition's stored batches as a raw fetch that reads version 2 gets them.
func rawBatches(t *testing.T, b *brokerProcess, topic string) [][]byte {
	var out [][]byte
	b.withRawConn(t, func(cc *grpc.ClientConn) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		resp, err := brookv1.NewFetchServiceClient(cc).Fetch(ctx, &brookv1.FetchRequest{
			Partitions: []*brookv1.FetchPartition{{Topic: topic, Partition: 0}}, MaxRecords: 10000,
			RawBatches: true, MaxBatchVersion: 2,
		})
		if err != nil {
			t.Fatal(err)
		}
		out = resp.GetPartitions()[0].GetBatches()
	})
	if len(out) == 0 {
		t.Fatal("no stored batches")
	}
	return out
}
