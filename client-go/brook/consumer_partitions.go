package brook

import (
	"cmp"
	"slices"
)

// consumerPartition is the consumer's state of one assigned partition.
type consumerPartition struct {
	// position is the next offset to read; meaningful when known.
	position int64
	known    bool
	// reset is a pending SeekTo (Earliest, Latest, a time), looked up at the
	// next Poll or Position; the zero Position when none.
	reset Position
	// end is the end offset the last fetch saw.
	end      int64
	endKnown bool
	paused   bool
	// gone: a fetch found the partition's topic or the partition itself gone
	// (deleted); it is left out of the fetches until it is assigned again or
	// sought, so that the other partitions are read meanwhile (fetchOnce).
	gone error
	// epoch changes whenever the position is set from outside a fetch (a seek,
	// a reset, a lookup). A fetch or lookup started before applies its result
	// only when the epoch is unchanged, so a concurrent Seek always wins.
	epoch uint64
}

// consumerPartitionRef names one partition's state as it was when a call started.
type consumerPartitionRef struct {
	tp       TopicPartition
	state    *consumerPartition
	epoch    uint64
	position int64
	reset    Position
}

// consumerPartitions is the assignment with its positions. The Consumer's mu guards it.
type consumerPartitions struct {
	order    []TopicPartition // sorted
	byTP     map[TopicPartition]*consumerPartition
	rotation int
	epochs   uint64
}

func (s *consumerPartitions) nextEpoch() uint64 {
	s.epochs++
	return s.epochs
}

// assign replaces the assignment; partitions kept keep their state, new ones start unknown.
func (s *consumerPartitions) assign(tps []TopicPartition) {
	next := make(map[TopicPartition]*consumerPartition, len(tps))
	for _, tp := range tps {
		if st, ok := s.byTP[tp]; ok {
			st.gone = nil // assigned again: fetched again, it says whether it is still gone
			next[tp] = st
		} else if _, dup := next[tp]; !dup {
			next[tp] = &consumerPartition{epoch: s.nextEpoch()}
		}
	}
	s.byTP = next
	s.order = s.order[:0]
	for tp := range next {
		s.order = append(s.order, tp)
	}
	slices.SortFunc(s.order, consumerCompareTP)
	s.rotation = 0
}

// clear drops everything and answers what was assigned.
func (s *consumerPartitions) clear() []TopicPartition {
	previous := s.assigned()
	s.byTP = nil
	s.order = nil
	s.rotation = 0
	return previous
}

func (s *consumerPartitions) assigned() []TopicPartition {
	return slices.Clone(s.order)
}

func (s *consumerPartitions) get(tp TopicPartition) *consumerPartition {
	return s.byTP[tp]
}

// current says whether ref's partition is still assigned and untouched since ref was taken.
func (s *consumerPartitions) current(ref consumerPartitionRef) bool {
	return s.byTP[ref.tp] == ref.state && ref.state.epoch == ref.epoch
}

func (s *consumerPartitions) seek(st *consumerPartition, offset int64) {
	st.position, st.known, st.reset, st.gone = offset, true, Position{}, nil
	st.epoch = s.nextEpoch()
}

func (s *consumerPartitions) requestReset(st *consumerPartition, to Position) {
	st.known, st.reset, st.gone = false, to, nil
	st.epoch = s.nextEpoch()
}

// withoutPosition are the partitions whose start must be looked up.
func (s *consumerPartitions) withoutPosition() []consumerPartitionRef {
	var out []consumerPartitionRef
	for _, tp := range s.order {
		if st := s.byTP[tp]; !st.known {
			out = append(out, consumerPartitionRef{tp: tp, state: st, epoch: st.epoch, reset: st.reset})
		}
	}
	return out
}

// knownPositions are the positions to commit: the next offset to read of
// each partition, but of none found gone (the broker refuses a commit that
// names a deleted topic, so the others' positions would not be stored).
func (s *consumerPartitions) knownPositions() map[TopicPartition]int64 {
	out := make(map[TopicPartition]int64, len(s.order))
	for _, tp := range s.order {
		if st := s.byTP[tp]; st.known && st.gone == nil {
			out[tp] = st.position
		}
	}
	return out
}

// fetchOrder are the partitions to fetch (known position, not paused, not gone), each
// going first in turn so that none starves under WithMaxPollRecords.
func (s *consumerPartitions) fetchOrder() []consumerPartitionRef {
	var ready []consumerPartitionRef
	for _, tp := range s.order {
		if st := s.byTP[tp]; st.known && !st.paused && st.gone == nil {
			ready = append(ready, consumerPartitionRef{tp: tp, state: st, epoch: st.epoch, position: st.position})
		}
	}
	n := len(ready)
	if n == 0 {
		return nil
	}
	start := s.rotation % n
	s.rotation = (s.rotation + 1) % n
	out := make([]consumerPartitionRef, 0, n)
	out = append(out, ready[start:]...)
	return append(out, ready[:start]...)
}

// goneErr is the error of an assigned, unpaused partition found gone, or nil.
func (s *consumerPartitions) goneErr() error {
	for _, tp := range s.order {
		if st := s.byTP[tp]; st.gone != nil && !st.paused {
			return st.gone
		}
	}
	return nil
}

func consumerCompareTP(a, b TopicPartition) int {
	if c := cmp.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return cmp.Compare(a.Partition, b.Partition)
}
