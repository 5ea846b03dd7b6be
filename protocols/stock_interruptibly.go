package protocols

import (
	"errors"

	"github.com/locksim/locksim/sim"
)

// StockInterruptibly is the workload of Redisson #7272's reproducer shape
// around seed 001's buy().
const StockInterruptibly = "stock-interruptibly"

func init() {
	// The shape of Redisson #7272's report: the acquire inside the try,
	// unlock() in finally whether or not the lock was taken:
	//   try { lock.lockInterruptibly(); buy(); } finally { lock.unlock(); }
	// A worker that was interrupted stops after its finally block (an
	// executor's shutdownNow()), so its thread is gone.
	registerWorkload(Workload{
		Name:    StockInterruptibly,
		Source:  "Redisson #7272's reproducer shape around seed 001's buy(): lockInterruptibly() in try, unlock() in finally",
		Summary: "buy() under lockInterruptibly(), unlock() in finally even when the acquire failed; an interrupted worker stops",
		Setup:   stockSetup,
		Thread:  stockInterruptiblyThread,
	})
}

func stockInterruptiblyThread(t *sim.Thread, r *Runner) {
	for i := 0; i < r.Sc.Ops; i++ {
		r.Think(t)
		lock := r.Lock("redisLock")
		ok, err := acquireInterruptibly(t, lock)
		if ok {
			buy(t, r, lock)
		}
		lock.Release(t)
		if errors.Is(err, sim.ErrInterrupted) || t.Interrupted() {
			return
		}
	}
}

// interruptibleLock is a lock with Lock.lockInterruptibly(): an
// interrupt while it waits for the lock ends the wait.
type interruptibleLock interface {
	AcquireInterruptibly(t *sim.Thread) (bool, error)
}

// acquireInterruptibly is lockInterruptibly() where the lock has it, its
// Acquire otherwise, recorded as an acquire.
func acquireInterruptibly(t *sim.Thread, lock Lock) (bool, error) {
	r, ok := lock.(*recorded)
	if !ok {
		return lock.Acquire(t)
	}
	il, ok := r.inner.(interruptibleLock)
	if !ok {
		return r.Acquire(t)
	}
	return r.record(t, il.AcquireInterruptibly)
}

// usesStock reports whether workload sells from the stock counter.
func usesStock(workload string) bool { return workload == "stock" || workload == StockInterruptibly }
