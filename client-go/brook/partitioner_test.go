package brook

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"testing"
)

// The vectors were computed by kafka-clients; the broker's and the Java client's tests read the same file.
func TestPartitionForKeyMatchesKafkaVectors(t *testing.T) {
	raw, err := os.ReadFile("../../protocol/testdata/partitioner-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Vectors []struct {
			KeyBase64  string `json:"key_base64"`
			Partitions int32  `json:"partitions"`
			Partition  int32  `json:"partition"`
		} `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	if len(file.Vectors) < 50 {
		t.Fatalf("only %d vectors read", len(file.Vectors))
	}
	for _, v := range file.Vectors {
		key, err := base64.StdEncoding.DecodeString(v.KeyBase64)
		if err != nil {
			t.Fatal(err)
		}
		if got := PartitionForKey(key, v.Partitions); got != v.Partition {
			t.Errorf("key %q over %d partitions: got %d, Kafka says %d", v.KeyBase64, v.Partitions, got, v.Partition)
		}
	}
}
