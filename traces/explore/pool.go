package explore

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// pool is the one worker pool of explore, matrix and verify. Jobs 0..Jobs-1
// run on Workers goroutines, and their results reach Deliver on the calling
// goroutine in job order, so whatever Deliver folds is a function of the
// jobs alone, never of the scheduling.
//
// The one stopping rule: when Deliver says stop for job k, no job of k's
// group after k is run or delivered (a matrix cell stops at its first
// failing seed, explore --until-first at its first violation, a verify cell
// at its first breaking placement); the jobs before k all were.
type pool[R any] struct {
	Workers int
	Jobs    int
	Group   func(k int) int // nil: one group
	Run     func(k int) R
	Deliver func(k int, r R) (stop bool, err error)
}

// liveWorkers counts the pool goroutines still running, for the test
// that no return path leaks one.
var liveWorkers atomic.Int64

// window bounds how far workers run ahead of delivery, so that one slow
// run cannot make the others pile up results in memory.
const windowPerWorker = 16

type slot[R any] struct {
	r       R
	ready   bool
	skipped bool
}

// poolRun is the state of one run of a pool, guarded by mu.
type poolRun[R any] struct {
	pool[R]
	window    int
	mu        sync.Mutex
	cond      *sync.Cond
	slots     map[int]*slot[R]
	next      int // next job to claim
	delivered int // next job to deliver
	closed    bool
	stopped   map[int]int // group -> the job it stopped at
}

// run runs the pool. It returns when every job has been delivered or
// skipped, when Deliver fails (its error), or when ctx is cancelled
// (interrupted is true; the jobs delivered are a prefix). In every case
// all its goroutines have ended before it returns.
func (p pool[R]) run(ctx context.Context) (interrupted bool, err error) {
	if p.Workers <= 0 {
		p.Workers = runtime.GOMAXPROCS(0)
	}
	if p.Group == nil {
		p.Group = func(int) int { return 0 }
	}
	r := &poolRun[R]{pool: p, window: p.Workers * windowPerWorker, slots: map[int]*slot[R]{}, stopped: map[int]int{}}
	r.cond = sync.NewCond(&r.mu)
	defer context.AfterFunc(ctx, r.halt)()
	var wg sync.WaitGroup
	for range p.Workers {
		wg.Add(1)
		liveWorkers.Add(1)
		go func() {
			defer wg.Done() // after the count below: Wait sees it at zero
			defer liveWorkers.Add(-1)
			r.work()
		}()
	}
	defer wg.Wait()
	defer r.halt()
	return r.deliver(ctx)
}

func (r *poolRun[R]) halt() {
	r.mu.Lock()
	r.closed = true
	r.cond.Broadcast()
	r.mu.Unlock()
}

// isStopped reports whether job k's group stopped before k.
func (r *poolRun[R]) isStopped(k int) bool {
	at, ok := r.stopped[r.Group(k)]
	return ok && k > at
}

// work claims jobs in order and runs them, until none is left or the
// pool halts.
func (r *poolRun[R]) work() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		for !r.closed && r.next < r.Jobs && r.next >= r.delivered+r.window {
			r.cond.Wait()
		}
		if r.closed || r.next >= r.Jobs {
			return
		}
		k := r.next
		r.next++
		s := &slot[R]{}
		r.slots[k] = s
		if r.isStopped(k) {
			s.ready, s.skipped = true, true
			r.cond.Broadcast()
			continue
		}
		r.mu.Unlock()
		res := r.Run(k)
		r.mu.Lock()
		s.r, s.ready = res, true
		r.cond.Broadcast()
	}
}

// deliver hands the results to Deliver in job order.
func (r *poolRun[R]) deliver(ctx context.Context) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.delivered < r.Jobs {
		s := r.slots[r.delivered]
		for !r.closed && ctx.Err() == nil && (s == nil || !s.ready) {
			r.cond.Wait()
			s = r.slots[r.delivered]
		}
		if r.closed || ctx.Err() != nil {
			return true, nil
		}
		k := r.delivered
		delete(r.slots, k)
		r.delivered++
		r.cond.Broadcast()
		if s.skipped || r.isStopped(k) {
			continue
		}
		r.mu.Unlock()
		stop, err := r.Deliver(k, s.r)
		r.mu.Lock()
		if err != nil {
			return false, err
		}
		if stop {
			r.stopped[r.Group(k)] = k
		}
	}
	return false, nil
}
