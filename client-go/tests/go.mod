// Tests of the Go client against the real broker process, in a module of
// their own so that test-only dependencies (goleak) stay out of the client's
// go.mod.
module github.com/brook-io/brook/client-go/tests

go 1.26.0

replace github.com/brook-io/brook/client-go => ../

replace github.com/brook-io/brook/client-go/brookprom => ../brookprom

require (
	github.com/brook-io/brook/client-go v0.0.0-00010101000000-000000000000
	github.com/brook-io/brook/client-go/brookprom v0.0.0-00010101000000-000000000000
	github.com/prometheus/client_golang v1.25.0
	go.uber.org/goleak v1.3.0
	google.golang.org/grpc v1.85.0
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/kylelemons/godebug v1.1.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.72.0 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
