package brook

// withdraw takes out of the buffer the records (the producer's own, by
// pointer) that were never handed to the stream, and fails them with err:
// they are never written. Records in flight, or in a batch sent before and
// queued again, stay: the broker may have written them, and their sequence
// numbers are spoken for. A batch never sent has no sequence numbers yet, so
// taking records out of it leaves no gap. Answers how many it took out.
func (a *accumulator) withdraw(records []*Record, err error) int {
	want := map[*Record]bool{}
	tps := map[TopicPartition]bool{}
	for _, r := range records {
		if r != nil {
			want[r] = true
			tps[TopicPartition{Topic: r.Topic, Partition: r.Partition}] = true
		}
	}
	var out []pendingRecord
	a.mu.Lock()
	for tp := range tps {
		q := a.partitions[tp]
		if q == nil {
			continue
		}
		if q.open != nil {
			out = q.open.take(want, out)
			if len(q.open.records) == 0 {
				q.open = nil
			}
		}
		kept := q.queue[:0]
		for _, b := range q.queue {
			if !b.sent {
				out = b.take(want, out)
			}
			if len(b.records) > 0 {
				kept = append(kept, b)
			}
		}
		clear(q.queue[len(kept):])
		q.queue = kept
	}
	a.mu.Unlock()
	if len(out) == 0 {
		return 0
	}
	a.releaseBytes(out)
	for _, pr := range out {
		pr.promise(pr.rec, err)
	}
	a.answered(out)
	return len(out)
}

// take moves the batch's records in want to out. Called with the accumulator locked.
func (b *producerBatch) take(want map[*Record]bool, out []pendingRecord) []pendingRecord {
	kept := b.records[:0]
	for _, pr := range b.records {
		if want[pr.rec] {
			out = append(out, pr)
			b.bytes -= pr.size
		} else {
			kept = append(kept, pr)
		}
	}
	clear(b.records[len(kept):])
	b.records = kept
	return out
}

// noteFailure keeps the sender's last failure to reach the broker (nil once
// it answers again), which the errors of records given up on wrap.
func (a *accumulator) noteFailure(err error) {
	a.mu.Lock()
	a.failure = err
	a.mu.Unlock()
}

// lastFailure is the sender's last failure to reach the broker, or nil.
func (a *accumulator) lastFailure() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.failure
}
