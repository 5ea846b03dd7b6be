package sim

// disarm takes the timer e out of the queue once what it timed has ended:
// a call answered in a millisecond or a latch wait that got its permit
// no longer leaves a timer (seconds, up to a lease) waiting in the queue.
// A 1,000-client Redisson run re-arms 1.7 million such timers. A removed
// timer takes no step, so it does not count against the run's budget.
// A timer already held by a paused process or a stalled thread stays
// held and does nothing when it is let go.
func (w *World) disarm(e *event) {
	if w.q.holds(e) {
		w.q.remove(int(e.idx))
		w.alloc.reuse(e)
		return
	}
	e.do, e.ref = doNothing, nil
}
