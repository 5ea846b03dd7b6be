package locktest

import (
	"fmt"
	"slices"
	"sync"

	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
)

// A lock of one's own (Config.Lock, Config.GoRedis) runs by name, since a
// scenario and its trace name their protocol, and a name is registered
// once per test binary. A test that builds its lock inside the test
// function hands locktest a new value on every run of the test (go test
// -count=N, a subtest per case): each of these values is bound to the
// name while its scenarios run. The protocol registered under the name
// forwards to the bound lock, so the trace, its hash and its replay do
// not depend on which value ran. Two values may share a name when they
// describe the same protocol (same lease, topologies, client settings);
// scenarios of different values under one name never run at once: a run
// waits for the runs of the other value to finish (parallel tests).

// slot is a name a lock of one's own is registered under.
type slot struct {
	shape   protocols.Protocol // what every value bound here must match
	field   string             // the Config field that registered it, for messages
	current *protocols.Protocol
	active  int // runs of current in progress
}

var slots = struct {
	sync.Mutex
	changed *sync.Cond
	m       map[string]*slot
}{m: map[string]*slot{}}

func init() { slots.changed = sync.NewCond(&slots.Mutex) }

// bind registers lock under its name, or checks that it matches the
// lock registered there; field is the Config field the user set
// ("Config.Lock", "Config.GoRedis"), named in every error.
func bind(field string, lock *protocols.Protocol) (*slot, error) {
	slots.Lock()
	defer slots.Unlock()
	if s, ok := slots.m[lock.Name]; ok {
		if err := sameShape(field, s, lock); err != nil {
			return nil, err
		}
		if s.active == 0 {
			s.current = lock // the newest value serves Replay and the CLI-free paths
		}
		return s, nil
	}
	if _, err := protocols.Lookup(lock.Name); err == nil {
		return nil, fmt.Errorf("locktest: %s: protocol name %q is taken (by the catalog or protocols.Register): give %s its own name", field, lock.Name, field)
	}
	s := &slot{shape: *lock, field: field, current: lock}
	fwd := *lock
	fwd.New = func(env protocols.Env, key string) protocols.Lock { return s.lock().New(env, key) }
	if lock.Attach != nil {
		fwd.Attach = func(w *sim.World, sc protocols.Scenario) error { return s.lock().Attach(w, sc) }
	}
	if err := protocols.Register(fwd); err != nil {
		return nil, fmt.Errorf("locktest: %s: %v", field, err)
	}
	slots.m[lock.Name] = s
	return s, nil
}

// sameShape checks that lock describes the protocol registered in s.
func sameShape(field string, s *slot, lock *protocols.Protocol) error {
	a, b := s.shape, *lock
	diff := ""
	switch {
	case s.field != field:
		return fmt.Errorf("locktest: %s %q: the name is already registered by a %s: give each lock its own name", field, lock.Name, s.field)
	case a.Lease != b.Lease:
		diff = fmt.Sprintf("Lease %v, earlier %v", b.Lease, a.Lease)
	case !slices.Equal(a.Topologies, b.Topologies) || a.Masters != b.Masters:
		diff = fmt.Sprintf("topologies %v, earlier %v", b.Topologies, a.Topologies)
		if field == fieldGoRedis {
			diff = "New and NewPool swapped"
		}
	case a.Client != b.Client:
		diff = fmt.Sprintf("Client %+v, earlier %+v", b.Client, a.Client)
	case a.AllMasters != b.AllMasters || a.Steps != b.Steps || (a.Attach == nil) != (b.Attach == nil):
		diff = "AllMasters, Steps or Attach differ"
	default:
		return nil
	}
	return fmt.Errorf("locktest: another %s is already registered as %q, with other settings (%s): give each lock its own name", field, lock.Name, diff)
}

// lock is the value runs under s's name use now.
func (s *slot) lock() *protocols.Protocol {
	slots.Lock()
	defer slots.Unlock()
	return s.current
}

// use binds lock to s for one run and returns the function that ends it;
// it waits while runs of another value are in progress.
func (s *slot) use(lock *protocols.Protocol) (done func()) {
	slots.Lock()
	defer slots.Unlock()
	for s.active > 0 && s.current != lock {
		slots.changed.Wait()
	}
	s.current = lock
	s.active++
	return func() {
		slots.Lock()
		defer slots.Unlock()
		s.active--
		slots.changed.Broadcast()
	}
}

// The Config fields a lock of one's own comes from.
const (
	fieldLock    = "Config.Lock"
	fieldGoRedis = "Config.GoRedis"
)
