package brook

import (
	"google.golang.org/protobuf/proto"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// retriableCodes may succeed later unchanged: the codes errors.proto marks
// (brook.v1.retriable), read from the generated descriptor so that the Go
// client, the Java client and the broker decide from the one catalog.
var retriableCodes = catalogRetriableCodes()

func catalogRetriableCodes() map[brookv1.ErrorCode]bool {
	out := map[brookv1.ErrorCode]bool{}
	values := brookv1.ErrorCode(0).Descriptor().Values()
	for i := 0; i < values.Len(); i++ {
		v := values.Get(i)
		if proto.GetExtension(v.Options(), brookv1.E_Retriable).(bool) {
			out[brookv1.ErrorCode(v.Number())] = true
		}
	}
	return out
}
