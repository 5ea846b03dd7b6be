package sim

import (
	"errors"
	"math/rand/v2"
	"time"

	"github.com/locksim/locksim/sim/trace"
)

// errKilled unwinds a thread whose process crashed or whose run ended.
var errKilled = errors.New("sim: thread killed")

// Thread is a simulated thread: ordinary blocking Go that yields to the
// scheduler inside every sim call (sleep, command, request).
type Thread struct {
	w       *World
	p       *Process
	Name    string
	client  string // process/thread, its identity in histories
	id      int
	fn      func(*Thread)
	co      *coro
	yield   func(struct{}) bool
	started bool // its coroutine has begun running fn
	exited  bool // fn returned or was unwound
	done    bool
	killed  bool
	bg      bool // started by another thread: a daemon, like the sentinel's
	waitTok uint64
	wakeVal any
	conns   map[string]int // per node, a connection opened after a timeout (dropConn)

	interrupted bool // Java's interrupt status (interrupt.go)
	call        *rpc // the call the thread waits for, if any: the interruptible wait

	next     *Thread // the next thread its world started
	procNext *Thread // the next thread its process started
}

func (w *World) spawnDaemon(p *Process, name string, fn func(*Thread)) *Thread {
	return w.spawnThread(p, name, fn, true)
}

func (w *World) spawn(p *Process, name string, fn func(*Thread)) *Thread {
	return w.spawnThread(p, name, fn, false)
}

func (w *World) spawnThread(p *Process, name string, fn func(*Thread), daemon bool) *Thread {
	t := w.alloc.thread()
	t.w, t.p, t.Name, t.client, t.id, t.bg, t.fn = w, p, name, p.clientName(name), w.nthreads, daemon, fn
	if !daemon {
		w.live++
	}
	w.nthreads++
	if w.lastThread == nil {
		w.firstThread = t
	} else {
		w.lastThread.next = t
	}
	w.lastThread = t
	if p.lastThread == nil {
		p.firstThread = t
	} else {
		p.lastThread.procNext = t
	}
	p.lastThread = t
	t.co = w.coroFor(t)
	w.rec.event(trace.Thread(p.Name, t.Client()))
	w.wakeAt(w.now, t, t.waitTok, nil)
	return t
}

// wake resumes t with v if t is still waiting on token tok.
func (w *World) wake(t *Thread, tok uint64, v any) {
	if t.done || t.waitTok != tok {
		return
	}
	t.waitTok++
	t.wakeVal = v
	prev := w.running
	w.running = t
	_, ok := t.co.next()
	w.running = prev
	if !ok || t.exited {
		t.finish()
	}
}

// finish marks t done and counts it out of the live threads.
func (t *Thread) finish() {
	if t.done {
		return
	}
	t.done = true
	if !t.bg {
		t.w.live--
	}
}

// park blocks the thread until a wake with its current token.
func (t *Thread) park() any {
	if t.killed {
		panic(errKilled)
	}
	if !t.yield(struct{}{}) || t.killed {
		panic(errKilled)
	}
	return t.wakeVal
}

// Client is the thread's identity in histories: process/thread.
func (t *Thread) Client() string { return t.client }

// Process returns the thread's process.
func (t *Thread) Process() *Process { return t.p }

// World returns the thread's world.
func (t *Thread) World() *World { return t.w }

// Now reads the process's own clock.
func (t *Thread) Now() time.Duration { return t.p.Clock.Read(t.w.now) }

// Monotonic reads the process's monotonic clock (Go's monotonic reading,
// Java's System.nanoTime): it runs at the clock's rate, drift included,
// but a wall-clock jump does not move it.
func (t *Thread) Monotonic() time.Duration {
	c := t.p.Clock
	return c.Read(t.w.now) - c.Jumped
}

// Sleep blocks for d as measured by the process's clock.
func (t *Thread) Sleep(d time.Duration) {
	if d < 0 {
		d = 0
	}
	t.w.wakeAt(t.w.now+t.p.Clock.TrueSpan(d), t, t.waitTok, nil)
	t.park()
}

// Go starts another thread in the same process.
// It is a daemon (a watchdog, a renewal timer): the run ends once every
// thread that is not a daemon has finished.
func (t *Thread) Go(name string, fn func(*Thread)) *Thread {
	return t.w.spawnDaemon(t.p, name, fn)
}

// Rand is the process's own PRNG stream (tokens, UUIDs, think times).
func (t *Thread) Rand() *rand.Rand {
	if t.p.rng == nil {
		t.p.rng = t.w.streams.Get("proc/" + t.p.Name)
	}
	return t.p.rng
}

// Invoke opens an operation in the history and returns its id.
func (t *Thread) Invoke(kind, key, value string) int {
	id := t.w.rec.invoke(t.Client(), t.p.Name, kind, key, value)
	if len(t.w.anchors) > 0 {
		t.w.anchorOp(t.p.Name, kind, trace.PhaseInvoke, "")
	}
	return id
}

// Return closes operation id with result.
func (t *Thread) Return(id int, result string) {
	t.w.rec.ret(id, result)
	if len(t.w.anchors) > 0 {
		t.w.anchorOp(t.p.Name, t.w.rec.trace.Ops[id].Kind, trace.PhaseReturn, result)
	}
}

// Note records a protocol-level event on this thread.
func (t *Thread) Note(key, detail string) {
	t.w.rec.event(trace.Note(t.p.Name, t.Client(), key, detail))
}
