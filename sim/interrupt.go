package sim

import (
	"errors"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// ErrInterrupted is Java's InterruptedException: the thread was
// interrupted while it waited for a reply (or called with its interrupt
// status set). The request it sent still reaches its party, and a
// future's callback still runs when the reply arrives.
var ErrInterrupted = errors.New("java.lang.InterruptedException")

// Interrupt is Thread.interrupt(): it sets the thread's interrupt status
// and, when the thread waits for a reply, ends that wait with
// ErrInterrupted (which clears the status, as the JDK does). Waits that
// are not on a reply (a sleep, a semaphore) are not interruptible in the
// sim: the status stays set for the thread's next call, which then
// returns ErrInterrupted right after sending its request.
func (t *Thread) Interrupt() {
	if t.done {
		return
	}
	t.interrupted = true
	c := t.call
	if c == nil {
		return
	}
	tok := t.waitTok
	t.w.scheduleWake(t.w.now, t, func() {
		if t.waitTok != tok || t.call != c || !t.interrupted {
			return // it woke otherwise first
		}
		t.interrupted = false
		c.abandoned = true
		c.wake(nil, ErrInterrupted)
	})
}

// IsInterrupted reports the thread's interrupt status.
func (t *Thread) IsInterrupted() bool { return t.interrupted }

// injectInterrupt interrupts every application thread of the process
// (what an executor's shutdownNow() does to its workers).
func injectInterrupt(w *World, f trace.Fault, id int) (applier, error) {
	p, err := w.targetProcess(f)
	return applyFunc(func(at time.Duration) {
		w.schedule(at, nil, func() {
			if p.crashed {
				return
			}
			w.recordFault(f, id, p.Name, "application threads interrupted")
			p.eachThread(func(t *Thread) {
				if !t.bg {
					t.Interrupt()
				}
			})
		})
	}), err
}

// Interrupted is Java's Thread.interrupted(): it reports the interrupt
// status and clears it.
func (t *Thread) Interrupted() bool {
	was := t.interrupted
	t.interrupted = false
	return was
}
