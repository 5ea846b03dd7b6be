package sim

import (
	"strings"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// External is code that runs outside the sim's threads but in the same
// virtual time: the go-redis bridge, whose processes are ordinary
// goroutines in a testing/synctest bubble. The world hands it control
// between its own events.
type External interface {
	// Settle lets outside code that the world woke (or that time woke)
	// run until it blocks, and feeds what it sent into the world, at the
	// current virtual time.
	Settle()
	// Sleep lets virtual time pass until until, or less when outside code
	// has something for the world first; it returns the time reached and
	// whether it stopped early.
	Sleep(until time.Duration) (time.Duration, bool)
}

// SetExternal attaches outside code to the world (one at most).
func (w *World) SetExternal(x External) { w.ext = x }

// External returns the outside code attached to the world, or nil.
func (w *World) External() External { return w.ext }

// advanceExternal lets outside code run up to the next event. It
// returns whether that event is due now, and false for alive when the run
// is over: no event and no outside input before the horizon. Whatever
// woke while time passed settles before the world runs anything at the
// new time, so outside code always sees the world's events of an instant
// after its own timers of that instant.
func (w *World) advanceExternal() (due, alive bool) {
	w.ext.Settle()
	until, ok := w.cfg.Horizon+1, false
	if w.q.Len() > 0 && w.q[0].at < until {
		until, ok = w.q[0].at, true
	}
	if until <= w.now {
		return ok, ok
	}
	at, early := w.ext.Sleep(until)
	w.now = max(w.now, at)
	return false, early || ok
}

// Post runs fn as an event of the process at the current virtual time:
// held while the process is paused, dropped once it has crashed. Outside
// code feeds its requests through it, so that a paused process sends
// nothing.
func (p *Process) Post(fn func()) { p.w.schedule(p.w.now, p, fn) }

// Send carries a message from party from to party to through the network
// (latency, partitions, loss) and runs deliver on arrival. target is the
// receiving process, nil for a node or the sentinel: a message to a
// process is held while it is paused and dropped once it has crashed.
func (w *World) Send(from, to string, target *Process, what string, deliver func()) {
	w.net.send(from, to, target, what, deliver)
}

// Await blocks the thread until the resume function handed to start is
// called, and returns the value given to it. resume must be called from
// the world's goroutine; it wakes the thread with an event of its
// process, held while the process is paused.
func (t *Thread) Await(start func(resume func(v any))) any {
	tok := t.waitTok
	start(func(v any) {
		t.w.wakeAt(t.w.now, t, tok, v)
	})
	return t.park()
}

// OnCrash registers fn to run when the process crashes (after its threads
// have unwound).
func (p *Process) OnCrash(fn func()) { p.onCrash = append(p.onCrash, fn) }

// MasterName is the node the sentinel currently knows as master.
func (w *World) MasterName() string { return w.master }

// OnPromote registers fn to run when the sentinel promotes a replica:
// old is the master it replaced, new the promoted one.
func (w *World) OnPromote(fn func(old, new string)) { w.onPromote = append(w.onPromote, fn) }

// Serve runs one command from connection conn of client on arrival at
// the node and hands its reply to answer (at once, or later for WAIT). A
// down node drops the command: the client hears nothing. conn numbers
// must not collide with thread ids: outside code uses negative ones.
func (n *Node) Serve(from *Process, conn int, client string, args []string, answer func(Reply)) {
	if n.down {
		n.w.rec.event(trace.Drop(from.Name, "to "+n.Name+" (down): "+strings.ToUpper(args[0])).WithFault(n.downBy))
		return
	}
	n.execAsync(conn, client, args, replyFunc(answer))
}

// OnNodeCrash registers fn to run when a node crashes (node-restart,
// failover), once the node is down: outside code closes the connections
// the node's host closed.
func (w *World) OnNodeCrash(fn func(node string)) { w.onNodeCrash = append(w.onNodeCrash, fn) }

// OnEnd registers fn to run when the run stops, after the world's threads
// have unwound.
func (w *World) OnEnd(fn func()) { w.onEnd = append(w.onEnd, fn) }

// Discard unwinds the threads of a world that will not run (its scenario
// was refused after they started), so that no goroutine is left behind.
func (w *World) Discard() {
	w.ran = true
	w.stopThreads()
}
