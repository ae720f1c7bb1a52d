// The Go client's load generator (perf/run-go-client.sh), in a module of its
// own so that it is not part of the client's module.
module github.com/brook-io/brook/perf/go

go 1.26.0

replace github.com/brook-io/brook/client-go => ../../client-go

require github.com/brook-io/brook/client-go v0.0.0-00010101000000-000000000000

require (
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect
	google.golang.org/grpc v1.85.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
