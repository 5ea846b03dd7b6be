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

// run runs the pool. It returns when every job has been delivered or
// skipped, when Deliver fails (its error), or when ctx is cancelled
// (interrupted is true; the jobs delivered are a prefix). In every case
// all its goroutines have ended before it returns.
func (p pool[R]) run(ctx context.Context) (interrupted bool, err error) {
	workers := p.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	group := p.Group
	if group == nil {
		group = func(int) int { return 0 }
	}
	window := workers * windowPerWorker
	var (
		mu        sync.Mutex
		cond      = sync.NewCond(&mu)
		slots     = map[int]*slot[R]{}
		next      int // next job to claim
		delivered int // next job to deliver
		closed    bool
		stopped   = map[int]int{} // group -> the job it stopped at
	)
	halt := func() {
		mu.Lock()
		closed = true
		cond.Broadcast()
		mu.Unlock()
	}
	defer context.AfterFunc(ctx, halt)()
	isStopped := func(k int) bool {
		at, ok := stopped[group(k)]
		return ok && k > at
	}

	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		liveWorkers.Add(1)
		go func() {
			defer liveWorkers.Add(-1)
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			for {
				for !closed && next < p.Jobs && next >= delivered+window {
					cond.Wait()
				}
				if closed || next >= p.Jobs {
					return
				}
				k := next
				next++
				s := &slot[R]{}
				slots[k] = s
				if isStopped(k) {
					s.ready, s.skipped = true, true
					cond.Broadcast()
					continue
				}
				mu.Unlock()
				r := p.Run(k)
				mu.Lock()
				s.r, s.ready = r, true
				cond.Broadcast()
			}
		}()
	}
	defer wg.Wait()
	defer halt()

	mu.Lock()
	defer mu.Unlock()
	for delivered < p.Jobs {
		s := slots[delivered]
		for !closed && ctx.Err() == nil && (s == nil || !s.ready) {
			cond.Wait()
			s = slots[delivered]
		}
		if closed || ctx.Err() != nil {
			return true, nil
		}
		k := delivered
		delete(slots, k)
		delivered++
		cond.Broadcast()
		if s.skipped || isStopped(k) {
			continue
		}
		mu.Unlock()
		stop, err := p.Deliver(k, s.r)
		mu.Lock()
		if err != nil {
			return false, err
		}
		if stop {
			stopped[group(k)] = k
		}
	}
	return false, nil
}
