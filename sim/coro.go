package sim

import "iter"

// coro is a coroutine that runs simulated threads one after another: a
// finished or killed thread's coroutine takes the next thread spawned,
// so a run starts a goroutine only for threads that overlap (and, with a
// Pool, hardly ever).
type coro struct {
	next func() (struct{}, bool)
	stop func()
	t    *Thread // the thread it runs or will run; nil while idle
}

// coroFor hands t an idle coroutine of the run, or of its pool, or a
// new one.
func (w *World) coroFor(t *Thread) *coro {
	var c *coro
	if n := len(w.idle); n > 0 {
		c, w.idle = w.idle[n-1], w.idle[:n-1]
	} else if c = w.cfg.Pool.takeCoro(); c == nil {
		c = newCoro()
		w.corosMade++
	}
	c.t = t
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
// every thread is done, to its pool, which ends those it does not keep.
func (w *World) endCoros() {
	idle := w.idle
	w.idle = nil
	w.cfg.Pool.putCoros(idle)
}
