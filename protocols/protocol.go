// Package protocols holds the lock protocols as ordinary straight-line Go
// written against the sim's thread API, the application workloads that use
// them, the Scenario that describes one run, and Run.
package protocols

import (
	"time"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// Lock is one client's handle on one lock, the shape of an RLock or a
// redsync Mutex: Acquire makes one acquisition as the protocol defines it
// (which may wait or retry inside), Release gives it back.
type Lock interface {
	Acquire(t *sim.Thread) (bool, error)
	Release(t *sim.Thread) (bool, error)
}

// Env is what a protocol instance may use: the Redis master (sim.Master,
// resolved per process to the node it believes is master), the independent
// masters of multi-master locks, and the lease the scenario asks for.
type Env struct {
	Master string
	Nodes  []string
	Data   string // the node holding the protected data (stock, lock-set)
	Lease  time.Duration

	run *runState // per-process client library state, set by Runner.Lock
}

// Protocol is one entry of the catalog.
type Protocol struct {
	Name    string
	Source  string        // where the protocol comes from
	Summary string        // one line for `locksim list`
	Lease   time.Duration // the source's default lease
	Renews  bool          // a background thread (watchdog, keep-alive) renews the lease while held
	// Client is the Redis client's timeout and retry policy in the source
	// (Redisson: 3000 ms, 3 retries, 1500 ms apart). Zero: the scenario's
	// timeout, no retries.
	Client sim.ClientConfig
	// Topologies the protocol runs on; empty means single and replicated.
	// The first one is its default.
	Topologies []string
	// Masters is how many independent masters a multi-master lock uses by
	// default (topology independent).
	Masters int
	// AllMasters: on independent masters, a hold needs every master
	// (MultiLock), not a majority (Redlock). The checker's deployment
	// model reads it.
	AllMasters bool
	// Steps is what one operation costs the scheduler, for the default
	// event budget; zero: DefaultStepCost.
	Steps StepCost
	// Scripts are the Lua scripts the protocol sends, with their fast
	// paths (Go code proven equal to each script by a conformance test):
	// each node of the protocol's runs serves them without the Lua VM. A
	// script left out runs on the VM, with the same replies, slower.
	Scripts []sim.Script
	New     func(env Env, key string) Lock
	// Attach, when set, runs once the world of a scenario is built and
	// before it runs: a lock whose code runs outside the sim's threads
	// (the go-redis bridge) connects to the world here, and refuses a
	// scenario it cannot run.
	Attach func(w *sim.World, sc Scenario) error
}

// Fencer is a Lock that hands out a fencing token with each acquisition;
// workloads pass it to the protected resource, which rejects stale ones.
type Fencer interface {
	Token() int64
}

// recorded wraps a Lock so that every acquire and release lands in the
// history of the calling thread.
type recorded struct {
	key   string
	inner Lock
}

func (r *recorded) Acquire(t *sim.Thread) (bool, error) { return r.record(t, r.inner.Acquire) }

// record records acquire as an acquire of r's key.
func (r *recorded) record(t *sim.Thread, acquire func(*sim.Thread) (bool, error)) (bool, error) {
	id := t.Invoke(model.OpAcquire, r.key, "")
	ok, err := acquire(t)
	t.Return(id, result(ok, err, model.ResFail))
	return ok, err
}

func (r *recorded) Release(t *sim.Thread) (bool, error) {
	id := t.Invoke(model.OpRelease, r.key, "")
	ok, err := r.inner.Release(t)
	t.Return(id, result(ok, err, model.ResNotOwner))
	return ok, err
}

func result(ok bool, err error, no string) string {
	switch {
	case err != nil:
		return model.ResError + ": " + err.Error()
	case ok:
		return model.ResOK
	}
	return no
}

// FencingToken returns the token of the acquisition lock (a lock
// Runner.Lock returned) holds when its protocol fences, and false
// otherwise: users' workloads (locktest) pass it to their resource.
func FencingToken(lock Lock) (int64, bool) { return fencingToken(lock) }

// fencingToken returns the token of the acquisition lock holds when its
// protocol fences (RFencedLock), and false otherwise.
func fencingToken(lock Lock) (int64, bool) {
	if r, ok := lock.(*recorded); ok {
		lock = r.inner
	}
	f, ok := lock.(Fencer)
	if !ok {
		return 0, false
	}
	return f.Token(), true
}

// IsFenced reports whether p's locks hand out fencing tokens: the
// workloads then pass the token to the protected resource, which rejects
// stale ones, and a lock held twice at once is no longer unsafe by itself.
func IsFenced(p Protocol) bool {
	_, ok := p.New(WithState(Env{Master: sim.Master, Nodes: []string{MasterNode}, Lease: p.Lease}), "probe").(Fencer)
	return ok
}

// heldChecker is a lock that can ask Redis whether the calling thread
// still holds it (Redisson's RLock.isHeldByCurrentThread).
type heldChecker interface {
	HeldByCurrentThread(t *sim.Thread) (bool, error)
}

// releaseIfHeld is seed 001's Redisson finally block:
// if (lock.isHeldByCurrentThread()) lock.unlock(). For a lock that cannot
// ask, it releases unconditionally. When the check says the lock is gone
// (or fails), no unlock is sent, but a release is still recorded so that
// the history shows where the thread stopped believing it held the lock.
func releaseIfHeld(t *sim.Thread, lock Lock) {
	r, ok := lock.(*recorded)
	if !ok {
		lock.Release(t)
		return
	}
	hc, ok := r.inner.(heldChecker)
	if !ok {
		r.Release(t)
		return
	}
	id := t.Invoke(model.OpRelease, r.key, "")
	held, err := hc.HeldByCurrentThread(t)
	switch {
	case err != nil:
		t.Return(id, model.ResError+": isHeldByCurrentThread: "+err.Error())
		return
	case !held:
		t.Note(r.key, "isHeldByCurrentThread() is false: unlock() skipped")
		t.Return(id, model.ResNotOwner)
		return
	}
	ok, err = r.inner.Release(t)
	t.Return(id, result(ok, err, model.ResNotOwner))
}
