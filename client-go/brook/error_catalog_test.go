package brook

import (
	"testing"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// The retriable codes are read from errors.proto's options; these are the ones
// the client retried when it kept its own table, and still must: a change of
// the catalog, or a reading of it that finds nothing, fails here.
func TestRetriableCodesComeFromTheCatalog(t *testing.T) {
	want := map[brookv1.ErrorCode]bool{
		brookv1.ErrorCode_ERROR_CODE_UNKNOWN_PARTITION: true, // partitions were just added: look again
		brookv1.ErrorCode_ERROR_CODE_NOT_ENOUGH_DISK:   true,
		brookv1.ErrorCode_ERROR_CODE_STORAGE_ERROR:     true,
	}
	for value, name := range brookv1.ErrorCode_name {
		code := brookv1.ErrorCode(value)
		if code == brookv1.ErrorCode_ERROR_CODE_UNSPECIFIED {
			continue
		}
		err := partitionError(code, "", "t", 0)
		if got := isRetriable(err); got != want[code] {
			t.Errorf("%s: retriable %v, want %v", name, got, want[code])
		}
	}
}

// A code this client does not know (a newer broker's) is not retried.
func TestAnUnknownCodeIsNotRetriable(t *testing.T) {
	if (&BrokerError{Code: brookv1.ErrorCode(999)}).Retriable() {
		t.Fatal("an unknown code must not be retriable")
	}
}
