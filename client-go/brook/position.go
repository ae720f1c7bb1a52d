package brook

import (
	"fmt"
	"time"

	brookv1 "github.com/brook-io/brook/client-go/gen/brook/v1"
)

// Position is where to start reading a partition: an exact offset, the first
// record at or after a time, the earliest record still held, or the end.
type Position struct {
	kind   positionKind
	offset int64
	time   time.Time
}

type positionKind int

const (
	positionUnset positionKind = iota
	positionOffset
	positionTime
	positionEarliest
	positionLatest
)

var (
	// Earliest is the log-start offset: the oldest record still held.
	Earliest = Position{kind: positionEarliest}
	// Latest is the end offset: the offset the next record produced will get.
	Latest = Position{kind: positionLatest}
)

// AtOffset is an exact offset.
func AtOffset(offset int64) Position { return Position{kind: positionOffset, offset: offset} }

// AtTime is the first record whose timestamp is at or after t (the end when there is none).
func AtTime(t time.Time) Position { return Position{kind: positionTime, time: t} }

// IsZero reports whether p was never set.
func (p Position) IsZero() bool { return p.kind == positionUnset }

func (p Position) String() string {
	switch p.kind {
	case positionOffset:
		return fmt.Sprintf("offset %d", p.offset)
	case positionTime:
		return "time " + p.time.UTC().Format(time.RFC3339Nano)
	case positionEarliest:
		return "earliest"
	case positionLatest:
		return "latest"
	}
	return "unset"
}

func (p Position) proto() *brookv1.Position {
	switch p.kind {
	case positionOffset:
		return &brookv1.Position{Kind: &brookv1.Position_Offset{Offset: p.offset}}
	case positionTime:
		return &brookv1.Position{Kind: &brookv1.Position_TimestampMs{TimestampMs: p.time.UnixMilli()}}
	case positionEarliest:
		return &brookv1.Position{Kind: &brookv1.Position_Boundary{Boundary: brookv1.Boundary_BOUNDARY_EARLIEST}}
	case positionLatest:
		return &brookv1.Position{Kind: &brookv1.Position_Boundary{Boundary: brookv1.Boundary_BOUNDARY_LATEST}}
	}
	return nil
}
