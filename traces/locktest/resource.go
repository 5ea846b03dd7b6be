package locktest

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
)

// Resource is a protected resource of one's own: its model, the service
// that implements it in the simulated world, and what a client does with
// it while it holds the lock. Config.Resource makes it the workload:
// every client thread takes the lock "<Spec.Name>-lock", runs Critical,
// and releases it, Ops times. locktest records each operation Critical
// performs (Section.Do) in the trace, and the checker checks the
// resource's history for linearizability against Spec (property
// resource: NoDamage and Both judge it) next to mutual exclusion; writes
// made with the lock's fencing token (Section.Write) are checked as a
// fenced register too (FenceHeld).
type Resource struct {
	// Spec is the resource's sequential model; Spec.Name names the
	// workload, the service and the lock.
	Spec model.Spec
	// Service returns a fresh implementation of the resource for one run:
	// it answers one request (the args a Section sent) from a client. nil:
	// Store(true), a key-value store that refuses stale fencing tokens.
	Service func() func(client string, args []string) string
	// Critical performs the i-th operation (0-based) of a client thread,
	// inside its critical section.
	Critical func(s *Section, i int)
	// Work is the time Section.Work spends; 0: one second.
	Work time.Duration
}

// Section is a client thread inside its critical section.
type Section struct {
	t       *sim.Thread
	r       *protocols.Runner
	lock    protocols.Lock
	name    string // the resource's
	service string
}

// Client names the client thread ("c1/t1").
func (s *Section) Client() string { return s.t.Client() }

// Do records one operation of the resource's Spec, op(arg) on key, around
// body, which performs it (Request, Write, Work) and returns its result;
// an error makes the outcome unknown (it may or may not have happened).
func (s *Section) Do(op, key, arg string, body func() (string, error)) (string, error) {
	id := s.t.Invoke(model.UserKind(s.name, op), key, arg)
	res, err := body()
	if err != nil {
		s.t.Return(id, model.ResError+": "+err.Error())
		return "", err
	}
	s.t.Return(id, res)
	return res, nil
}

// Request sends one request to the resource's service and returns its
// reply, through the simulated network (it may be delayed, lost or time
// out).
func (s *Section) Request(args ...string) (string, error) {
	return s.t.Request(s.service, args...)
}

// Write sends a request that writes key, with the lock's fencing token
// appended when the lock hands out tokens. The service answers
// model.ResRejected ("rejected") to refuse a stale token; a fenced write
// is recorded for the checker's fenced-register check (FenceHeld).
func (s *Section) Write(key string, args ...string) (string, error) {
	tok, fenced := s.Token()
	if !fenced {
		return s.Request(args...)
	}
	token := strconv.FormatInt(tok, 10)
	id := s.t.Invoke(model.OpWrite, key, token)
	reply, err := s.Request(append(args, token)...)
	switch {
	case err != nil:
		s.t.Return(id, model.ResError+": "+err.Error())
	case reply == model.ResRejected:
		s.t.Return(id, model.ResRejected)
	default:
		s.t.Return(id, model.ResOK)
	}
	return reply, err
}

// Token is the lock's fencing token for this hold, when its protocol
// fences (protocols.Fencer).
func (s *Section) Token() (int64, bool) { return protocols.FencingToken(s.lock) }

// Work spends the critical section's working time (Resource.Work, or
// Config.Work), longer while a slow-work fault is on.
func (s *Section) Work() { s.r.Work(s.t) }

// Store returns a key-value store for Resource.Service: "GET key"
// answers the value ("" when unset); "SET key value [token]" stores it
// and answers "OK". With fenced set, a SET whose token is lower than the
// highest the key accepted is refused with model.ResRejected; without,
// tokens are ignored (a resource that does not check the fence).
func Store(fenced bool) func() func(client string, args []string) string {
	return func() func(string, []string) string {
		values, highest := map[string]string{}, map[string]int64{}
		return func(_ string, args []string) string {
			switch {
			case len(args) == 2 && args[0] == "GET":
				return values[args[1]]
			case (len(args) == 3 || len(args) == 4) && args[0] == "SET":
				if len(args) == 4 && fenced {
					tok, err := strconv.ParseInt(args[3], 10, 64)
					if err != nil || tok < highest[args[1]] {
						return model.ResRejected
					}
					highest[args[1]] = tok
				}
				values[args[1]] = args[2]
				return "OK"
			}
			return "ERR unknown request"
		}
	}
}

// thread is a client thread of the resource's workload.
func (res *Resource) thread(t *sim.Thread, r *protocols.Runner) {
	name := res.Spec.Name
	for i := 0; i < r.Sc.Ops; i++ {
		r.Think(t)
		for attempt := 0; attempt < r.Sc.Attempts; attempt++ {
			lock := r.Lock(name + "-lock")
			if ok, _ := lock.Acquire(t); !ok {
				r.Retry(t)
				continue
			}
			res.Critical(&Section{t: t, r: r, lock: lock, name: name, service: name}, i)
			lock.Release(t)
			break
		}
	}
}

var (
	resourcesMu sync.Mutex
	// resources are the Config.Resource workloads registered, by name.
	resources = map[string]*Resource{}
)

// registerResource registers res as a workload once; another resource
// under a name already taken is an error.
func registerResource(res *Resource) error {
	resourcesMu.Lock()
	defer resourcesMu.Unlock()
	name := res.Spec.Name
	if prev, ok := resources[name]; ok {
		if prev != res {
			return fmt.Errorf("locktest: another Config.Resource is already registered as %q: give each resource its own name", name)
		}
		return nil
	}
	if err := res.Spec.Validate(); err != nil {
		return fmt.Errorf("locktest: %v", err)
	}
	if res.Critical == nil {
		return fmt.Errorf("locktest: resource %s has no Critical", name)
	}
	if _, err := protocols.LookupWorkload(name); err == nil {
		return fmt.Errorf("locktest: workload name %q is taken: give Config.Resource's Spec its own name", name)
	}
	service := res.Service
	if service == nil {
		service = Store(true)
	}
	spec := res.Spec
	work := res.Work
	if work == 0 {
		work = time.Second
	}
	err := protocols.RegisterWorkload(protocols.Workload{
		Name: name, Source: "locktest.Resource", Summary: "a user's own resource, checked against its model.Spec",
		WorkMs: work.Milliseconds(), Spec: &spec, Thread: res.thread,
		Setup: func(w *sim.World, _ protocols.Scenario) { w.AddService(name, service()) },
	})
	if err != nil {
		return fmt.Errorf("locktest: %v", err)
	}
	resources[name] = res
	return nil
}
