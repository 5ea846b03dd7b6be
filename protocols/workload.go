package protocols

import (
	"errors"
	"fmt"
	"time"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
)

// Workload is the application code that uses a lock: it sets up the
// protected data and runs one client thread's requests.
type Workload struct {
	Name    string
	Source  string
	Summary string
	WorkMs  int64 // default time spent inside the critical section
	Ops     int   // default operations per thread (0: 4)
	ThinkMs int64 // default think time between operations (0: 200 ms)
	Setup   func(w *sim.World, sc Scenario)
	Thread  func(t *sim.Thread, r *Runner)
	// Spec is the model of a user's own resource (locktest) whose
	// operations the workload records; the checker checks them against it.
	Spec *model.Spec
}

// workloads holds every workload by name: the built-in ones, registered
// by their files' init, and users' own (locktest), registered at any time
// from any goroutine.
var workloads = newRegistry[Workload]("workload")

// registerWorkload adds a built-in workload; a duplicate name is a
// programming error.
func registerWorkload(w Workload) {
	if err := RegisterWorkload(w); err != nil {
		panic(err)
	}
}

// RegisterWorkload adds a workload of one's own, so scenarios can name
// it. Its Spec, when set, must be valid.
func RegisterWorkload(w Workload) error {
	switch {
	case w.Name == "":
		return errors.New("workload needs a name")
	case w.Thread == nil:
		return fmt.Errorf("workload %s has no Thread", w.Name)
	}
	if w.Spec != nil {
		if err := w.Spec.Validate(); err != nil {
			return fmt.Errorf("workload %s: %v", w.Name, err)
		}
	}
	return workloads.add(w.Name, w)
}

// LookupWorkload returns the workload called name.
func LookupWorkload(name string) (Workload, error) {
	return workloads.get(name)
}

// Workloads lists the workloads in name order.
func Workloads() []Workload {
	return workloads.all()
}

// Runner gives workload code the scenario and a recorded lock per key.
type Runner struct {
	Sc    Scenario
	Proto Protocol
	Env   Env

	run      runState                      // client library state per process
	wl       map[string]any                // workload state shared by the run's threads
	arrivals map[*sim.Thread]time.Duration // open loop: each thread's next arrival
}

// Lock returns a fresh, recorded lock instance on key.
func (r *Runner) Lock(key string) Lock {
	env := r.Env
	env.run = &r.run
	inner := r.Proto.New(env, key)
	if k, ok := inner.(redisKeyer); ok {
		key = k.RedisKey() // the history names the lock by its Redis key
	}
	return &recorded{key: key, inner: inner}
}

// redisKeyer is a lock stored under another Redis key than the name the
// application gives it (Spring's registryKey:path).
type redisKeyer interface{ RedisKey() string }

// shared returns the run-wide workload value called key, creating it
// with init on first use.
func (r *Runner) shared(key string, init func() any) any {
	if r.wl == nil {
		r.wl = map[string]any{}
	}
	v, ok := r.wl[key]
	if !ok {
		v = init()
		r.wl[key] = v
	}
	return v
}

// Think waits before a request: a random think time in a closed loop;
// in an open loop, until the thread's next arrival (drawn with mean
// ThinkMs), however long the previous request took.
func (r *Runner) Think(t *sim.Thread) {
	if r.Sc.ThinkMs <= 0 {
		return
	}
	if r.Sc.Arrival != ArrivalOpen {
		t.Sleep(time.Duration(t.Rand().Int64N(r.Sc.ThinkMs+1)) * time.Millisecond)
		return
	}
	if r.arrivals == nil {
		r.arrivals = map[*sim.Thread]time.Duration{}
	}
	next, ok := r.arrivals[t]
	if !ok {
		next = t.Monotonic()
	}
	next += time.Duration(t.Rand().ExpFloat64() * float64(r.Sc.ThinkMs) * float64(time.Millisecond))
	r.arrivals[t] = next
	if d := next - t.Monotonic(); d > 0 {
		t.Sleep(d)
	}
}

// Work spends the critical section's working time, longer while a
// slow-work fault is on.
func (r *Runner) Work(t *sim.Thread) {
	if d := time.Duration(r.Sc.WorkMs)*time.Millisecond + t.Process().SlowWork; d > 0 {
		t.Sleep(d)
	}
}

// Retry waits before the user tries a refused request again.
func (r *Runner) Retry(t *sim.Thread) {
	t.Sleep(time.Duration(r.Sc.RetryMs) * time.Millisecond)
}

// Shared returns the run-wide value called key, creating it with init on
// first use: state a workload's threads share within one run (users'
// workloads, locktest).
func (r *Runner) Shared(key string, init func() any) any { return r.shared(key, init) }
