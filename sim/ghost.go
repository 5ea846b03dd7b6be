package sim

// A disarmed timer still takes its step where it would have fired (the
// budget counts it, a paused process holds it), but its queue slot, which
// keeps the time and sequence number, points at its thread's one shared
// no-op event instead of keeping its own event alive. Redisson's waiters
// re-arm a lease-long timer at every wake-up: a 1,000-client run otherwise
// holds 1.7 million dead events in its queue.

// retireDisarmed lets disarmed timers share their thread's ghost; tests
// turn it off to compare with timers that keep their own no-op event.
var retireDisarmed = true

// disarm turns the timer e into a step that does nothing.
func (w *World) disarm(e *event) {
	if retireDisarmed && e.thr != nil && w.q.holds(e) {
		w.q[e.idx].e = e.thr.ghostEvent()
		*e = event{}
		w.free = append(w.free, e)
		return
	}
	e.do, e.ref = doNothing, nil // held by a paused or stalled process, or ghosts are off
}

// ghostEvent is t's shared no-op event. The queue keeps each step's time
// and sequence number in its slot and sets them on the event as it pops
// it; a paused process may hold the one event several times over.
func (t *Thread) ghostEvent() *event {
	if t.ghost == nil {
		t.ghost = &event{proc: t.p, thr: t, do: doNothing, ghost: true}
	}
	return t.ghost
}
