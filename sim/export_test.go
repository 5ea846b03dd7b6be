package sim

import (
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// SetEventBlock makes the recorder keep n events unpacked, until the
// returned func restores the default: a test can pack a short run, or
// keep a long one unpacked.
func SetEventBlock(n int) (restore func()) {
	old := eventBlock
	eventBlock = n
	return func() { eventBlock = old }
}

// SetLarge makes runs pack their events on another core from the n-th
// packed event, and unpack them as a large run's from n packed events,
// until the returned func restores the defaults.
func SetLarge(n int) (restore func()) {
	oldPack, oldUnpack := packAside, largeUnpack
	packAside, largeUnpack = n, n
	return func() { packAside, largeUnpack = oldPack, oldUnpack }
}

// Rerecord records evs in a new world, each at its time, and returns what
// the recorder gives back and the bytes its packed events took.
func Rerecord(evs []trace.Event) (out []trace.Event, packed int) {
	w := New(Config{})
	for _, e := range evs {
		w.now = time.Duration(e.T)
		w.rec.event(e)
	}
	w.rec.stopPacking()
	for _, c := range w.rec.done {
		packed += len(c)
	}
	return w.rec.events(), packed + len(w.rec.cur)
}
