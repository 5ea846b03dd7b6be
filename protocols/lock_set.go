package protocols

import (
	"sort"
	"strconv"
	"strings"

	"github.com/locksim/locksim/model"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/trace"
)

// LockSetKey is the Redis key holding lock-set's set, a sorted,
// comma-separated string.
const LockSetKey = "lockset"

// lockSetLock is the lock lock-set's threads take.
const lockSetLock = "lockset-lock"

func init() {
	// Jepsen's lock-set workload: each operation adds a unique element to
	// a set by a read-modify-write under the lock (GET the set, add the
	// element, SET it back). A final read shows which acknowledged adds
	// survived: under a broken lock two writers read the same set and one
	// overwrites the other's element. With a fencing lock the SET goes
	// through the fenced storage check.
	registerWorkload(Workload{
		Name:    "lock-set",
		Source:  "Jepsen lock-set (read-modify-write of a set under the lock)",
		Summary: "add a unique element to a set stored in Redis by GET/SET under the lock; lost elements are the damage",
		WorkMs:  0,
		// Jepsen's schedule: many short adds close together, so that
		// holds follow each other and a lapse is seen by the next writer.
		Ops:     10,
		ThinkMs: 20,
		Setup: func(w *sim.World, sc Scenario) {
			w.Record(trace.Workload(DataNode(sc), LockSetKey, "initial set empty"))
		},
		Thread: lockSetThread,
	})
}

// lockSetProgress tracks the run's worker threads, so that the last one
// to finish makes the final read.
type lockSetProgress struct {
	workers []lockSetWorker
}

type lockSetWorker struct {
	p    *sim.Process
	done bool
}

func lockSetThread(t *sim.Thread, r *Runner) {
	prog := r.shared("lock-set", func() any { return &lockSetProgress{} }).(*lockSetProgress)
	me := len(prog.workers)
	prog.workers = append(prog.workers, lockSetWorker{p: t.Process()})
	for i := 0; i < r.Sc.Ops; i++ {
		r.Think(t)
		elem := t.Client() + "#" + strconv.Itoa(i)
		for attempt := 0; attempt < r.Sc.Attempts; attempt++ {
			lock := r.Lock(lockSetLock)
			ok, _ := lock.Acquire(t)
			if !ok {
				r.Retry(t)
				continue
			}
			op := t.Invoke(model.OpAdd, LockSetKey, elem)
			v, err := getData(t, r.Env.Data, LockSetKey)
			r.Work(t)
			switch {
			case err != nil:
				t.Return(op, model.ResError+": "+err.Error())
			default:
				if rejected, err := setData(t, r.Env.Data, LockSetKey, addElement(v, elem), lock); err != nil {
					t.Return(op, model.ResError+": "+err.Error())
				} else if rejected {
					t.Return(op, model.ResRejected)
				} else {
					t.Return(op, model.ResOK)
				}
			}
			lock.Release(t)
			break
		}
	}
	prog.workers[me].done = true
	for _, w := range prog.workers {
		if !w.done && !w.p.Crashed() {
			return
		}
	}
	// The last live worker reads the set. A client restarted later
	// finishes last again and reads again: the last read is the final
	// one.
	op := t.Invoke(model.OpRead, LockSetKey, "")
	v, err := t.Call(r.Env.Data, "GET", LockSetKey)
	if err != nil {
		t.Return(op, model.ResError+": "+err.Error())
		return
	}
	t.Return(op, v.Str)
}

// addElement adds elem to the sorted, comma-separated set s.
func addElement(s, elem string) string {
	var set []string
	if s != "" {
		set = strings.Split(s, ",")
	}
	if i := sort.SearchStrings(set, elem); i == len(set) || set[i] != elem {
		set = append(set, "")
		copy(set[i+1:], set[i:])
		set[i] = elem
	}
	return strings.Join(set, ",")
}
