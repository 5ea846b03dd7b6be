package sim

import "time"

// event is one scheduled step. An event aimed at a process (a timer, a
// reply, a thread wake-up) is held while that process is paused and
// dropped once it has crashed.
type event struct {
	at   time.Duration
	seq  uint64
	proc *Process
	thr  *Thread // a wake-up of this thread: held while it is stalled
	// ref is what the event acts on: a func() (doFunc), an *rpcAttempt
	// (doArrive, doDeliver, doExpire), a *Subscription (doPublished), a
	// *semWaiter (doSemTimeout), a *Process (doResume) or a *pauseFault
	// (doPause). One field for all keeps the event small:
	// a run's queue holds a timer for every semaphore wait.
	ref  any
	tok  uint64  // doWake: thr's wait token, and the value it wakes with
	val  any     //
	text string  // doPublished: the message
	msg  message // set for a message in flight: it acts on arrival, unless dropped
	do   eventAction
	idx  int32 // its slot in the queue while queued (disarm)
	// Set for a message: in flight to a node or service (it keeps the run
	// alive), sent (the event is a message), a reply (msg.what is the
	// request it answers).
	inflight, sent, reply bool
}

// eventAction is what an event does when it runs. The common steps of a
// thread's sleep and of a command's round trip are typed fields rather
// than closures, which would cost an allocation each.
type eventAction uint8

const (
	doFunc       eventAction = iota // run fn
	doWake                          // wake thr with tok and val
	doArrive                        // att's request reaches its party
	doDeliver                       // att's answer reaches its thread
	doExpire                        // att's timeout
	doPublished                     // a published message reaches sub
	doSemTimeout                    // sw gives up waiting
	doResume                        // a paused process resumes
	doPause                         // a gc-pause fault starts
	// A timer disarmed while a paused process or stalled thread held it.
	doNothing
)

// run performs the event's action.
func (e *event) run(w *World) {
	switch e.do {
	case doWake:
		w.wake(e.thr, e.tok, e.val)
	case doArrive:
		e.ref.(*rpcAttempt).arrive()
	case doDeliver:
		e.ref.(*rpcAttempt).deliver()
	case doExpire:
		e.ref.(*rpcAttempt).expire()
	case doPublished:
		e.ref.(*Subscription).receive(e.text)
	case doSemTimeout:
		e.ref.(*semWaiter).timeout()
	case doResume:
		e.ref.(*Process).resume()
	case doPause:
		pf := e.ref.(*pauseFault)
		pf.p.pause(pf.d, pf.kind, pf.id)
	case doNothing:
	default:
		e.ref.(func())()
	}
}

// eventQueue is a binary min-heap of events by time, then sequence
// number: a total order, so events leave it in the same order whatever
// the heap's shape. Each slot keeps its event's key beside the pointer,
// so that sifting compares without loading the events.
type eventQueue []queued

type queued struct {
	at  time.Duration
	seq uint64
	e   *event
}

func (q eventQueue) Len() int { return len(q) }

func earlier(a, b queued) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

func (q *eventQueue) push(e *event) {
	x := queued{e.at, e.seq, e}
	h := append(*q, x)
	*q = h
	h.up(len(h)-1, x)
}

func (q *eventQueue) pop() *event {
	h := *q
	x := h[0]
	n := len(h) - 1
	last := h[n]
	h[n] = queued{}
	h = h[:n]
	*q = h
	if n > 0 {
		h.down(0, last)
	}
	return x.e
}

// remove takes slot i out of the queue.
func (q *eventQueue) remove(i int) {
	h := *q
	n := len(h) - 1
	last := h[n]
	h[n] = queued{}
	h = h[:n]
	*q = h
	if i == n {
		return
	}
	if i > 0 && earlier(last, h[(i-1)/2]) {
		h.up(i, last)
	} else {
		h.down(i, last)
	}
}

// up places x at slot i or above it.
func (h eventQueue) up(i int, x queued) {
	for i > 0 {
		p := (i - 1) / 2
		if !earlier(x, h[p]) {
			break
		}
		h.set(i, h[p])
		i = p
	}
	h.set(i, x)
}

// down places x at slot i or below it.
func (h eventQueue) down(i int, x queued) {
	n := len(h)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && earlier(h[c+1], h[c]) {
			c++
		}
		if !earlier(h[c], x) {
			break
		}
		h.set(i, h[c])
		i = c
	}
	h.set(i, x)
}

func (h eventQueue) set(i int, x queued) {
	h[i] = x
	x.e.idx = int32(i)
}

// holds reports whether e waits in the queue (a popped event keeps a
// stale slot number).
func (h eventQueue) holds(e *event) bool {
	i := int(e.idx)
	return i < len(h) && h[i].e == e
}
