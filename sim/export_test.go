package sim

import (
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// Rerecord records evs in a new world that keeps the first block events
// as they are, each at its time, and returns what the
// recorder gives back and the bytes its packed events took.
func Rerecord(evs []trace.Event, block int) (out []trace.Event, packed int) {
	w := New(Config{})
	w.rec.first = make([]trace.Event, 0, block)
	for _, e := range evs {
		w.now = time.Duration(e.T)
		w.rec.event(e)
	}
	for _, c := range w.rec.done {
		packed += len(c)
	}
	return w.rec.events(), packed + len(w.rec.cur)
}
