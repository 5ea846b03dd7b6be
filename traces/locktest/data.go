package locktest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/protocols"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/bridge"
	"github.com/locksim/locksim/sim/trace"
)

// Data is data of one's own that a GoRedis lock protects, kept in the
// same simulated Redis and read and written with go-redis inside the
// critical section: an inventory doing GET and DECR, a Lua script, any
// commands. Config.Data makes it the workload: every client thread takes
// a lock (one of Locks, "<Name>-lock" by default), runs Critical, and
// releases it, Ops times. At
// the end of the run the last client to finish reads the protected keys
// from the master and Invariant judges them with the history; the harm
// it finds is the run's damage (property damage, NoDamage), explained by
// the first two operations that ran at once and the cause of their
// clients' overlapping holds, as for the built-in workloads.
type Data struct {
	// Name names the workload and its lock: letters, digits, '-' and '_'
	// (the rule GoRedis.Name follows too).
	Name string
	// Keys are the protected keys and their values before the run, set
	// as strings on the master.
	Keys map[string]string
	// Locks are the lock keys the operations take, one per operation,
	// drawn from the client's seeded stream: the number of distinct
	// locks. Critical learns which one it holds (Operation.Lock). Empty:
	// one lock, "<Name>-lock".
	Locks []string
	// Critical performs one operation inside the critical section, with
	// the client thread's go-redis client (the one its lock runs on), in
	// virtual time; its result is recorded in the history (an error makes
	// the outcome unknown). It must return once ctx is cancelled.
	Critical func(ctx context.Context, rdb redis.UniversalClient, op Operation) (string, error)
	// Invariant judges the run from the protected keys' final values
	// (a key that no longer exists is absent from final) and the
	// operations that returned, in the order they returned: what the
	// data should hold after them, and what is lost or wrong if it
	// does not.
	Invariant func(final map[string]string, history []Operation) Harm
}

// Harm is what Data.Invariant found wrong: counts as the built-in
// workloads' damage, and one sentence that says what is wrong. Its
// fields (it is model.Harm):
//
//	LostUpdates      int    // updates another holder's write overwrote
//	DuplicateInserts int    // records inserted twice
//	OversoldUnits    int    // units sold beyond the stock
//	LostElements     int    // elements added and then lost
//	Explanation      string // one sentence: "stock is 97 after 5 sales of 100"
//
// The zero Harm means the data is as serial use would leave it; a
// negative count is taken as 0, and counts without an Explanation get
// one listing the protected keys' final values.
//
//	return locktest.Harm{LostUpdates: lost, Explanation: "stock:apples is 98 after 3 sales of 100"}
type Harm = model.Harm

// Operation is one operation of Data.Critical.
type Operation struct {
	// Client is the client thread ("c1/t1"); Index its operation number,
	// from 0; Lock the lock key it holds (one of Data.Locks).
	Client string
	Index  int
	Lock   string
	// Result is what Critical returned (empty while it runs), Err its
	// error: the operation may or may not have taken effect.
	Result string
	Err    error
	// Call and Return are the virtual times it started and returned.
	Call, Return time.Duration
}

// fieldData is the Config field of a user's data, for messages.
const fieldData = "Config.Data"

// checkName refuses the Name of a lock or data of one's own (field is
// the Config field the user set): letters, digits, - and _ only, the one
// rule for both. The name becomes part of the workload and model names of
// traces ("data:<name>:final") and of the protocol name a trace and its
// replay command carry.
func checkName(field, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("locktest: %s needs a Name", field)
	case !model.IsName(name):
		return fmt.Errorf("locktest: %s.Name %q: letters, digits, - and _ only", field, name)
	}
	return nil
}

// dataSlot is the workload a Data name is registered as: each run uses
// the Data value its Check bound last (a literal built in the test is a
// new value on every run of the test).
type dataSlot struct {
	keys    map[string]string
	locks   []string
	current *Data
}

var dataSlots = struct {
	sync.Mutex
	m map[string]*dataSlot
}{m: map[string]*dataSlot{}}

// bindData registers d as a workload, or binds it to the workload of
// its name.
func bindData(d *Data) error {
	if err := checkName(fieldData, d.Name); err != nil {
		return err
	}
	switch {
	case len(d.Keys) == 0:
		return fmt.Errorf("locktest: Config.Data %s needs Keys: the protected keys and their initial values", d.Name)
	case d.Critical == nil:
		return fmt.Errorf("locktest: Config.Data %s needs a Critical", d.Name)
	case d.Invariant == nil:
		return fmt.Errorf("locktest: Config.Data %s needs an Invariant", d.Name)
	}
	for i, l := range d.Locks {
		if l == "" || slices.Contains(d.Locks[:i], l) {
			return fmt.Errorf("locktest: Config.Data %s: Locks[%d] %q: lock keys must be distinct and not empty", d.Name, i, l)
		}
		if _, ok := d.Keys[l]; ok {
			return fmt.Errorf("locktest: Config.Data %s: Locks[%d] %q is also a protected key (Keys)", d.Name, i, l)
		}
	}
	dataSlots.Lock()
	defer dataSlots.Unlock()
	if s, ok := dataSlots.m[d.Name]; ok {
		if !maps.Equal(s.keys, d.Keys) || !slices.Equal(s.locks, d.Locks) {
			return fmt.Errorf("locktest: another Config.Data is already registered as %q, with other Keys or Locks: give each data its own name", d.Name)
		}
		s.current = d
		return nil
	}
	if _, err := protocols.LookupWorkload(d.Name); err == nil {
		return fmt.Errorf("locktest: Config.Data name %q is taken by a workload: give Config.Data its own name", d.Name)
	}
	s := &dataSlot{keys: maps.Clone(d.Keys), locks: slices.Clone(d.Locks), current: d}
	err := protocols.RegisterWorkload(protocols.Workload{
		Name: d.Name, Source: "locktest.Data", Summary: "a user's own data in Redis, written with go-redis under the lock",
		Setup: s.setup, Thread: s.thread,
	})
	if err != nil {
		return fmt.Errorf("locktest: Config.Data: %v", err)
	}
	dataSlots.m[d.Name] = s
	return nil
}

func (s *dataSlot) data() *Data {
	dataSlots.Lock()
	defer dataSlots.Unlock()
	return s.current
}

// setup stores the protected keys' initial values on the data node.
func (s *dataSlot) setup(w *sim.World, sc protocols.Scenario) {
	n := w.Node(protocols.DataNode(sc))
	for _, k := range slices.Sorted(maps.Keys(s.keys)) {
		n.Miniredis().Set(k, s.keys[k])
		w.Record(trace.Workload(n.Name, k, "initial value "+strconv.Quote(s.keys[k])))
	}
}

// dataRun is one run's progress: the history so far and the workers, so
// that the last one to finish judges the data.
type dataRun struct {
	history []Operation
	workers []*sim.Process
	done    []bool
}

// thread is one client thread of the data's workload.
func (s *dataSlot) thread(t *sim.Thread, r *protocols.Runner) {
	d := s.data()
	run := r.Shared("data:"+d.Name, func() any { return &dataRun{} }).(*dataRun)
	me := len(run.workers)
	run.workers, run.done = append(run.workers, t.Process()), append(run.done, false)
	b := bridge.Of(t.World())
	locks := s.locks
	if len(locks) == 0 {
		locks = []string{d.Name + "-lock"}
	}
	for i := 0; i < r.Sc.Ops; i++ {
		r.Think(t)
		key := locks[0]
		if len(locks) > 1 {
			key = locks[t.Rand().IntN(len(locks))]
		}
		for attempt := 0; attempt < r.Sc.Attempts; attempt++ {
			lock := r.Lock(key)
			if ok, _ := lock.Acquire(t); !ok {
				r.Retry(t)
				continue
			}
			op := Operation{Client: t.Client(), Index: i, Lock: key, Call: t.Now()}
			id := t.Invoke(model.DataKind(d.Name), d.Name, strconv.Itoa(i))
			err := b.Call(t, func(ctx context.Context, c *bridge.Clients) error {
				res, err := d.Critical(ctx, c.Client, op)
				op.Result = res
				return err
			})
			op.Return, op.Err = t.Now(), err
			if err != nil {
				t.Return(id, model.ResError+": "+err.Error())
			} else {
				t.Return(id, op.Result)
			}
			run.history = append(run.history, op)
			lock.Release(t)
			break
		}
	}
	run.done[me] = true
	for i, p := range run.workers {
		if !run.done[i] && !p.Crashed() {
			return
		}
	}
	// The last live worker judges the data. A client restarted later
	// finishes last again and judges again: the last judgement counts.
	final := map[string]string{}
	var shown []string
	for _, k := range slices.Sorted(maps.Keys(s.keys)) {
		v, err := t.Call(r.Env.Data, "GET", k)
		if err != nil {
			id := t.Invoke(model.DataFinalKind(d.Name), d.Name, "")
			t.Return(id, model.ResError+": final read of "+k+": "+err.Error())
			return
		}
		if !v.IsNil() {
			final[k] = v.Str
			shown = append(shown, k+"="+strconv.Quote(v.Str))
		} else {
			shown = append(shown, k+" absent")
		}
	}
	h := d.Invariant(final, slices.Clone(run.history))
	h.LostUpdates, h.DuplicateInserts = max(0, h.LostUpdates), max(0, h.DuplicateInserts)
	h.OversoldUnits, h.LostElements = max(0, h.OversoldUnits), max(0, h.LostElements)
	h.Explanation = strings.ReplaceAll(h.Explanation, "\n", " ")
	if h.Total() > 0 && h.Explanation == "" {
		h.Explanation = "final " + strings.Join(shown, ", ")
	}
	id := t.Invoke(model.DataFinalKind(d.Name), d.Name, strings.Join(shown, ", "))
	t.Return(id, h.String())
}

// checkData binds Config.Data and makes it the workload.
func (c *config) checkData() error {
	switch {
	case c.GoRedis == nil:
		return errors.New("locktest: Config.Data needs Config.GoRedis: its Critical runs go-redis commands on the lock's client")
	case c.Resource != nil:
		return errors.New("locktest: Config.Data and Config.Resource are both set: the workload is one or the other")
	case slices.Contains(c.topos, protocols.TopoIndependent):
		return fmt.Errorf("locktest: Config.Data %s: topology %s keeps the data on a node of its own, out of the go-redis clients' reach; use %s or %s",
			c.Data.Name, protocols.TopoIndependent, protocols.TopoSingle, protocols.TopoReplicated)
	}
	if err := bindData(c.Data); err != nil {
		return err
	}
	c.Workload = c.Data.Name
	c.custom = true // the locksim CLI does not know the workload
	return nil
}
