package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The queue hands out the earliest pending event by time, then sequence
// number, however pushes, pops and removals interleave.
func TestEventQueueOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var q eventQueue
		var pending []*event
		seq := uint64(0)
		check := func() {
			least := slices.MinFunc(pending, func(a, b *event) int {
				if before(a, b) {
					return -1
				}
				return 1
			})
			if got := q.pop(); got != least {
				t.Fatalf("round %d: popped (%v, %d), want (%v, %d)", round, got.at, got.seq, least.at, least.seq)
			}
			pending = slices.DeleteFunc(pending, func(e *event) bool { return e == least })
		}
		for range r.IntN(300) {
			seq++
			e := &event{at: time.Duration(r.IntN(20)), seq: seq}
			q.push(e)
			pending = append(pending, e)
			switch r.IntN(6) {
			case 0, 1:
				check()
			case 2:
				x := pending[r.IntN(len(pending))]
				if !q.holds(x) {
					t.Fatalf("round %d: the queue lost (%v, %d)", round, x.at, x.seq)
				}
				q.remove(int(x.idx))
				if q.holds(x) {
					t.Fatalf("round %d: removed (%v, %d) is still held", round, x.at, x.seq)
				}
				pending = slices.DeleteFunc(pending, func(e *event) bool { return e == x })
			}
		}
		for len(pending) > 0 {
			check()
		}
		if q.Len() != 0 {
			t.Fatalf("round %d: %d events left", round, q.Len())
		}
	}
}

// before is the queue's order on two events.
func before(a, b *event) bool { return earlier(queued{a.at, a.seq, a}, queued{b.at, b.seq, b}) }
