package sim

import (
	"iter"
	"sync"
	"sync/atomic"
)

// coro is a coroutine that runs simulated threads one after another: a
// finished or killed thread's coroutine takes the next thread spawned,
// so a run starts a goroutine only for threads that overlap (and, once
// ShareCoroutines is on, hardly ever).
type coro struct {
	next func() (struct{}, bool)
	stop func()
	t    *Thread // the thread it runs or will run; nil while idle
}

// shared holds idle coroutines between runs, when sharing is on.
var shared struct {
	on   atomic.Bool
	mu   sync.Mutex
	idle []*coro
}

// sharedCoros bounds the shared pool; a run that ends with more idle
// coroutines ends the rest.
const sharedCoros = 1024

// ShareCoroutines lets every later run take its threads' coroutines from
// a process-wide pool, and give them back when it ends: a new coroutine
// costs several microseconds (a goroutine and its stack growing), about
// a tenth of a short run's CPU. Only for a program that never runs a
// world inside a testing/synctest bubble: a coroutine made outside a
// bubble must not be resumed inside one, nor the other way round (the
// runtime aborts). The locksim command turns it on; the bridge never does.
func ShareCoroutines() { shareCoroutines(true) }

// shareCoroutines turns sharing on or off; off ends the pooled ones.
func shareCoroutines(on bool) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	shared.on.Store(on)
	if !on {
		for _, c := range shared.idle {
			c.stop()
		}
		shared.idle = nil
	}
}

// coroFor hands t an idle coroutine of the run, or of the shared pool,
// or a new one.
func (w *World) coroFor(t *Thread) *coro {
	var c *coro
	if n := len(w.idle); n > 0 {
		c, w.idle = w.idle[n-1], w.idle[:n-1]
	} else if c = takeShared(); c == nil {
		c = newCoro()
		w.corosMade++
	}
	c.t = t
	return c
}

func takeShared() *coro {
	if !shared.on.Load() {
		return nil
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	n := len(shared.idle)
	if n == 0 {
		return nil
	}
	c := shared.idle[n-1]
	shared.idle = shared.idle[:n-1]
	return c
}

func newCoro() *coro {
	c := &coro{}
	c.next, c.stop = iter.Pull(func(yield func(struct{}) bool) {
		for {
			t := c.t
			t.yield, t.started = yield, true
			t.body()
			t.exited = true
			t.w.release(c)
			if !yield(struct{}{}) { // idle until the next thread, or the end
				return
			}
		}
	})
	return c
}

// release makes c idle.
func (w *World) release(c *coro) {
	c.t = nil
	w.idle = append(w.idle, c)
}

// body runs the thread's function; a kill unwinds it.
func (t *Thread) body() {
	defer func() {
		if r := recover(); r != nil && r != errKilled { //nolint:errorlint
			panic(r)
		}
	}()
	t.fn(t)
}

// kill unwinds t where it waits (its deferred code runs, and any wait
// there unwinds too) and counts it done. A thread that never ran just
// gives its coroutine back.
func (t *Thread) kill() {
	t.killed = true
	if t.started {
		t.co.next()
	} else {
		t.w.release(t.co)
	}
	t.finish()
}

// endCoros hands the world's idle coroutines, which are all of them once
// every thread is done, to the shared pool, or ends their goroutines.
func (w *World) endCoros() {
	idle := w.idle
	w.idle = nil
	if shared.on.Load() {
		shared.mu.Lock()
		keep := min(len(idle), sharedCoros-len(shared.idle))
		shared.idle = append(shared.idle, idle[:keep]...)
		idle = idle[keep:]
		shared.mu.Unlock()
	}
	for _, c := range idle {
		c.stop()
	}
}
