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

// poolRun is the state of one run of a pool, guarded by mu. Goroutines
// are woken only when they can go on: a worker when the window moves
// while it waits for it, the deliverer when a batch of results is ready.
type poolRun[R any] struct {
	pool[R]
	window    int
	batch     int // results the deliverer waits for before it wakes
	mu        sync.Mutex
	workers   *sync.Cond // a worker waits for the window to move
	results   *sync.Cond // the deliverer waits for a batch
	waiting   int        // workers waiting for the window
	want      int        // the deliverer waits for jobs [delivered, want); 0: it is not waiting
	slots     map[int]*slot[R]
	next      int // next job to claim
	delivered int // next job to deliver
	readyTo   int // jobs [delivered, readyTo) are ready
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
	window := p.Workers * windowPerWorker
	r := &poolRun[R]{pool: p, window: window, batch: window / 2, slots: map[int]*slot[R]{}, stopped: map[int]int{}}
	r.workers, r.results = sync.NewCond(&r.mu), sync.NewCond(&r.mu)
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
	r.workers.Broadcast()
	r.results.Signal()
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
			r.waiting++
			r.workers.Wait()
			r.waiting--
		}
		if r.closed || r.next >= r.Jobs {
			return
		}
		k := r.next
		r.next++
		s := &slot[R]{}
		r.slots[k] = s
		if r.isStopped(k) {
			s.skipped = true
		} else {
			r.mu.Unlock()
			s.r = r.Run(k)
			r.mu.Lock()
		}
		s.ready = true
		r.markReady()
	}
}

// markReady moves readyTo past the results now ready, and wakes the
// deliverer once those it waits for are.
func (r *poolRun[R]) markReady() {
	for s := r.slots[r.readyTo]; s != nil && s.ready; s = r.slots[r.readyTo] {
		r.readyTo++
	}
	if r.want > 0 && r.readyTo >= r.want {
		r.want = 0
		r.results.Signal()
	}
}

// deliver hands the results to Deliver in job order. It waits for a
// batch of them at a time (fewer at the end), so that a worker's result
// rarely has to wake it.
func (r *poolRun[R]) deliver(ctx context.Context) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.delivered < r.Jobs {
		if r.readyTo <= r.delivered {
			r.want = min(r.delivered+r.batch, r.Jobs)
			for !r.closed && ctx.Err() == nil && r.want > 0 {
				r.results.Wait()
			}
			r.want = 0
		}
		if r.closed || ctx.Err() != nil {
			return true, nil
		}
		k := r.delivered
		s := r.slots[k]
		delete(r.slots, k)
		r.delivered++
		if r.waiting > 0 {
			r.workers.Broadcast()
		}
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
