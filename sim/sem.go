package sim

import "time"

// Sem is a counting semaphore local to one process (a java.util.concurrent
// Semaphore, or a ReentrantLock with one permit): threads of the process
// wait on it in FIFO order.
type Sem struct {
	p       *Process
	permits int
	waiters []*semWaiter
	first   [1]*semWaiter // waiters' room for one, the usual case
}

type semWaiter struct {
	s       *Sem
	t       *Thread
	tok     uint64
	granted bool
	gone    bool
	timer   *event // its timeout, while it may be pending
}

// Sem returns the process's semaphore called name, creating it with
// permits on first use.
func (p *Process) Sem(name string, permits int) *Sem {
	if p.sems == nil {
		p.sems = map[string]*Sem{}
	}
	s := p.sems[name]
	if s == nil {
		s = &Sem{p: p, permits: permits}
		p.sems[name] = s
	}
	return s
}

// NewSem returns a semaphore of the process that nothing looks up by
// name: one per wait or per subscription.
func (p *Process) NewSem(permits int) *Sem {
	s := p.w.alloc.sem()
	s.p, s.permits = p, permits
	return s
}

// TryAcquire takes a permit if one is free.
func (s *Sem) TryAcquire() bool {
	if s.permits > 0 && len(s.waiters) == 0 {
		s.permits--
		return true
	}
	return false
}

// Acquire takes a permit, waiting at most timeout (negative: forever).
func (s *Sem) Acquire(t *Thread, timeout time.Duration) bool {
	if s.TryAcquire() {
		return true
	}
	if timeout == 0 {
		return false
	}
	w := t.w.alloc.semWaiter()
	w.s, w.t, w.tok = s, t, t.waitTok
	if len(s.waiters) == 0 {
		s.waiters = s.first[:0]
	}
	s.waiters = append(s.waiters, w)
	if timeout > 0 {
		e := t.w.alloc.event()
		e.at, e.proc, e.thr, e.do, e.ref = t.w.now+t.p.Clock.TrueSpan(timeout), t.p, t, doSemTimeout, w
		w.timer = e
		t.w.scheduleEvent(e)
	}
	return t.park().(bool)
}

// Release returns n permits and wakes waiters in FIFO order.
func (s *Sem) Release(n int) {
	s.permits += n
	for s.permits > 0 && len(s.waiters) > 0 {
		w := s.waiters[0]
		s.waiters = s.waiters[1:]
		if w.gone {
			continue
		}
		s.permits--
		w.granted = true
		w.disarm()
		s.p.w.wakeAt(s.p.w.now, w.t, w.tok, true)
	}
}

// Waiting is the number of threads blocked on the semaphore.
func (s *Sem) Waiting() int { return len(s.waiters) }

// disarm makes w's pending timeout a step that does nothing once w got
// its permit: a latch wait's timeout (up to a lock's lease) no longer
// keeps the waiter in memory until it fires.
func (w *semWaiter) disarm() {
	if e := w.timer; e != nil && e.do == doSemTimeout && e.ref == w {
		w.t.w.disarm(e)
	}
	w.timer = nil
}

// timeout ends w's wait without a permit, unless it got one.
func (w *semWaiter) timeout() {
	if w.granted || w.gone {
		return
	}
	w.gone = true
	w.s.drop(w)
	w.t.w.wake(w.t, w.tok, false)
}

func (s *Sem) drop(w *semWaiter) {
	for i, x := range s.waiters {
		if x == w {
			s.waiters = append(s.waiters[:i], s.waiters[i+1:]...)
			return
		}
	}
}
