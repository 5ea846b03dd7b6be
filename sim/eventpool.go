package sim

// message is what a network event carries besides its delivery.
type message struct {
	from, to, what string
}

// newEvent returns a cleared event, reusing one that already ran: a run
// schedules thousands of events, of which a few dozen wait at a time.
func (w *World) newEvent() *event {
	if n := len(w.free); n > 0 {
		e := w.free[n-1]
		w.free = w.free[:n-1]
		return e
	}
	return w.events.next()
}

// fire runs e and keeps it for reuse. Nothing refers to an event once it
// ran: held events (paused processes, stalled threads) never reach here.
func (w *World) fire(e *event) {
	if e.sent {
		w.net.arrive(e)
	} else {
		e.run(w)
	}
	*e = event{}
	w.free = append(w.free, e)
}
